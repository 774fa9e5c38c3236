// A reader of the package's generated declaration file, for the subset of TypeScript it uses
// (interfaces, type aliases, unions, literals, arrays, Record, Partial, keyof, object literals), and a
// checker of runtime values against those declarations.
import { readFileSync } from 'node:fs';

/** Parses the declarations: `{ interfaces, aliases, functions, classes }`. */
export function parseDeclarations(source) {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  const interfaces = new Map();
  const aliases = new Map();
  const functions = new Map();
  const classes = new Map();
  let i = 0;
  const rest = () => text.slice(i);
  while (i < text.length) {
    const m = /^\s*export\s+(interface|type|function|class|declare\s+function)\s+/.exec(rest());
    if (!m) {
      const next = text.indexOf('export ', i + 1);
      if (next < 0) break;
      i = next;
      continue;
    }
    i += m[0].length;
    const kind = m[1];
    if (kind === 'interface') {
      const head = /^(\w+)(?:\s+extends\s+([\w\s,]+?))?\s*\{/.exec(rest());
      if (!head) throw new Error(`cannot read interface at ${rest().slice(0, 60)}`);
      i += head[0].length - 1;
      const body = balanced(text, i);
      i += body.length;
      const iface = parseObjectBody(body.slice(1, -1));
      iface.extends = head[2] ? head[2].split(',').map((s) => s.trim()) : [];
      interfaces.set(head[1], iface);
    } else if (kind === 'type') {
      const head = /^(\w+)\s*=\s*/.exec(rest());
      i += head[0].length;
      const end = endOfStatement(text, i);
      aliases.set(head[1], parseType(text.slice(i, end)));
      i = end + 1;
    } else if (kind === 'class') {
      const head = /^(\w+)\s*\{/.exec(rest());
      i += head[0].length - 1;
      const body = balanced(text, i);
      i += body.length;
      const methods = new Map();
      for (const line of body.slice(1, -1).split(';')) {
        const ctor = /^\s*constructor\s*\(([\s\S]*)\)\s*$/.exec(line);
        if (ctor) methods.set('constructor', { params: parseParams(ctor[1]), returns: { kind: 'void' } });
        const mm = /^\s*(\w+)\s*\(([\s\S]*)\)\s*:\s*([\s\S]+)$/.exec(line);
        if (mm) methods.set(mm[1], { params: parseParams(mm[2]), returns: parseType(mm[3]) });
      }
      classes.set(head[1], methods);
    } else {
      const head = /^(\w+)\s*\(/.exec(rest());
      i += head[0].length - 1;
      const params = balanced(text, i, '(', ')');
      i += params.length;
      const ret = /^\s*:\s*/.exec(rest());
      i += ret[0].length;
      const end = endOfStatement(text, i);
      functions.set(head[1], { params: parseParams(params.slice(1, -1)), returns: parseType(text.slice(i, end)) });
      i = end + 1;
    }
  }
  return { interfaces, aliases, functions, classes };
}

export function readDeclarations(path) {
  return parseDeclarations(readFileSync(path, 'utf8'));
}

function balanced(text, start, open = '{', close = '}') {
  let depth = 0;
  for (let j = start; j < text.length; j++) {
    if (text[j] === open) depth++;
    else if (text[j] === close && --depth === 0) return text.slice(start, j + 1);
  }
  throw new Error('unbalanced declaration');
}

function endOfStatement(text, start) {
  let depth = 0;
  for (let j = start; j < text.length; j++) {
    const c = text[j];
    if ('{(<['.includes(c)) depth++;
    else if ('})>]'.includes(c)) depth--;
    else if (c === ';' && depth === 0) return j;
  }
  return text.length;
}

function splitTop(text, sep) {
  const parts = [];
  let depth = 0;
  let quote = null;
  let start = 0;
  for (let j = 0; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if ('{(<['.includes(c)) depth++;
    else if ('})>]'.includes(c)) depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, j));
      start = j + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseParams(text) {
  return splitTop(text, ',').map((p) => {
    const m = /^(\w+)(\?)?\s*:\s*([\s\S]+)$/.exec(p);
    return { name: m[1], optional: Boolean(m[2]), type: parseType(m[3]) };
  });
}

function parseObjectBody(body) {
  const members = [];
  let index = null;
  for (const part of splitTop(body, ';').flatMap((p) => splitTop(p, ','))) {
    const idx = /^\[\s*\w+\s*:\s*string\s*\]\s*:\s*([\s\S]+)$/.exec(part);
    if (idx) {
      index = parseType(idx[1]);
      continue;
    }
    const m = /^(?:readonly\s+)?(\w+)(\?)?\s*:\s*([\s\S]+)$/.exec(part);
    if (!m) {
      members.push({ name: part, optional: true, type: { kind: 'unsupported', text: part } });
      continue;
    }
    members.push({ name: m[1], optional: Boolean(m[2]), type: parseType(m[3]) });
  }
  return { members, index };
}

/** A type expression as a tree. */
export function parseType(source) {
  let t = source.trim();
  const alternatives = splitTop(t.replace(/^\|/, ''), '|');
  if (alternatives.length > 1) return { kind: 'union', of: alternatives.map(parseType) };
  t = alternatives[0];
  const parts = splitTop(t, '&');
  if (parts.length > 1) return { kind: 'intersection', of: parts.map(parseType) };
  if (t.endsWith('[]')) return { kind: 'array', of: parseType(t.slice(0, -2)) };
  if (t.startsWith('(') && t.endsWith(')')) {
    const inner = t.slice(1, -1).trim();
    if (/^string\s*&\s*\{\s*\}$/.test(inner)) return { kind: 'string' };
    return parseType(inner);
  }
  if (t.startsWith('{')) return { kind: 'object', ...parseObjectBody(t.slice(1, -1)) };
  const literal = /^"([^"]*)"$/.exec(t) ?? /^'([^']*)'$/.exec(t);
  if (literal) return { kind: 'literal', value: literal[1] };
  if (/^-?\d+(\.\d+)?$/.test(t)) return { kind: 'literal', value: Number(t) };
  if (t === 'true' || t === 'false') return { kind: 'literal', value: t === 'true' };
  if (['string', 'number', 'boolean', 'null', 'undefined', 'unknown', 'any', 'void'].includes(t)) return { kind: t };
  const keyof = /^keyof\s+(\w+)$/.exec(t);
  if (keyof) return { kind: 'keyof', of: keyof[1] };
  const generic = /^(\w+)\s*<([\s\S]+)>$/.exec(t);
  if (generic) return { kind: 'generic', name: generic[1], args: splitTop(generic[2], ',').map(parseType) };
  if (/^\w+$/.test(t)) return { kind: 'ref', name: t };
  // Syntax these declarations do not use for the API (function types, qualified names): kept as
  // text, and a value checked against it is reported.
  return { kind: 'unsupported', text: t };
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks `value` against `type`; returns the list of mismatches (empty when it fits). With
 * `exact` (outputs), every required member must be there and no other, in declaration order;
 * without it (inputs), only the values present are checked: a function may read fewer fields than
 * its parameter type declares, and it ignores undeclared keys.
 */
export function check(decls, value, type, path = 'value', exact = true) {
  const problems = [];
  visit(value, type, path);
  return problems;

  function fits(v, t, p) {
    const before = problems.length;
    visit(v, t, p);
    const ok = problems.length === before;
    problems.length = before;
    return ok;
  }

  function members(name) {
    const iface = decls.interfaces.get(name);
    if (!iface) return null;
    const inherited = iface.extends.flatMap((parent) => members(parent)?.members ?? []);
    return { members: [...inherited, ...iface.members], index: iface.index };
  }

  function visitObject(v, shape, p) {
    if (!isObject(v)) return problems.push(`${p}: expected an object, got ${JSON.stringify(v)}`);
    const keys = Object.keys(v);
    for (const m of shape.members) {
      if (!Object.hasOwn(v, m.name)) {
        if (!m.optional && exact) problems.push(`${p}.${m.name}: missing (declared required)`);
        continue;
      }
      visit(v[m.name], m.type, `${p}.${m.name}`);
    }
    const declared = shape.members.map((m) => m.name);
    for (const k of keys) {
      if (declared.includes(k)) continue;
      if (shape.index) visit(v[k], shape.index, `${p}.${k}`);
      else if (exact) problems.push(`${p}.${k}: not declared`);
    }
    if (exact && !shape.index) {
      const order = keys.filter((k) => declared.includes(k));
      const want = declared.filter((k) => order.includes(k));
      if (order.join() !== want.join()) problems.push(`${p}: keys in order ${order.join(',')}, declared ${want.join(',')}`);
    }
  }

  function visit(v, t, p) {
    switch (t.kind) {
      case 'union':
        if (!t.of.some((alt) => fits(v, alt, p))) problems.push(`${p}: ${JSON.stringify(v)?.slice(0, 120)} fits none of ${describe(t)}`);
        return;
      case 'array':
        if (!Array.isArray(v)) return problems.push(`${p}: expected an array`);
        v.forEach((item, j) => visit(item, t.of, `${p}[${j}]`));
        return;
      case 'object':
        return visitObject(v, t, p);
      case 'intersection': {
        // Object parts merge into one shape (their members, any index signature).
        const shapes = t.of.map(shapeOf);
        if (shapes.every(Boolean)) {
          return visitObject(v, { members: shapes.flatMap((s) => s.members), index: shapes.find((s) => s.index)?.index ?? null }, p);
        }
        for (const part of t.of) visit(v, part, p);
        return;
      }
      case 'literal':
        if (v !== t.value) problems.push(`${p}: expected ${JSON.stringify(t.value)}, got ${JSON.stringify(v)}`);
        return;
      case 'string':
      case 'number':
      case 'boolean':
        if (typeof v !== t.kind) problems.push(`${p}: expected ${t.kind}, got ${JSON.stringify(v)}`);
        return;
      case 'null':
        if (v !== null) problems.push(`${p}: expected null`);
        return;
      case 'undefined':
      case 'void':
        if (v !== undefined) problems.push(`${p}: expected undefined`);
        return;
      case 'unknown':
      case 'any':
        return;
      case 'keyof': {
        const shape = members(t.of);
        if (!shape.members.some((m) => m.name === v)) problems.push(`${p}: ${JSON.stringify(v)} is not a key of ${t.of}`);
        return;
      }
      case 'generic':
        if (t.name === 'Record') {
          if (!isObject(v)) return problems.push(`${p}: expected an object`);
          const keyType = resolve(t.args[0]);
          for (const [k, item] of Object.entries(v)) {
            if (!fits(k, keyType, p)) problems.push(`${p}: key ${JSON.stringify(k)} is not a ${describe(t.args[0])}`);
            visit(item, t.args[1], `${p}.${k}`);
          }
          // A Record over a union of literals has every key.
          if (keyType.kind === 'union' && keyType.of.every((a) => a.kind === 'literal')) {
            for (const a of keyType.of) if (!Object.hasOwn(v, a.value)) problems.push(`${p}: key ${JSON.stringify(a.value)} missing`);
          }
          return;
        }
        if (t.name === 'Partial') {
          const shape = t.args[0].kind === 'ref' ? members(t.args[0].name) : t.args[0];
          return visitObject(v, { ...shape, members: shape.members.map((m) => ({ ...m, optional: true })) }, p);
        }
        return problems.push(`${p}: unsupported generic ${t.name}`);
      case 'ref': {
        if (decls.aliases.has(t.name)) return visit(v, decls.aliases.get(t.name), p);
        const shape = members(t.name);
        if (shape) return visitObject(v, shape, p);
        return problems.push(`${p}: unknown type ${t.name}`);
      }
      default:
        problems.push(`${p}: unsupported type ${t.kind}`);
    }
  }

  function shapeOf(t) {
    if (t.kind === 'object') return t;
    if (t.kind === 'ref') return decls.aliases.has(t.name) ? shapeOf(decls.aliases.get(t.name)) : members(t.name);
    if (t.kind === 'intersection') {
      const shapes = t.of.map(shapeOf);
      if (!shapes.every(Boolean)) return null;
      return { members: shapes.flatMap((s) => s.members), index: shapes.find((s) => s.index)?.index ?? null };
    }
    return null;
  }

  function resolve(t) {
    return t.kind === 'ref' && decls.aliases.has(t.name) ? resolve(decls.aliases.get(t.name)) : t;
  }
}

/** The literal members of a union alias (`ReasonCode` → its strings). */
export function literalsOf(decls, name) {
  const t = decls.aliases.get(name);
  if (!t) throw new Error(`no type ${name}`);
  const alts = t.kind === 'union' ? t.of : [t];
  return alts.map((a) => {
    if (a.kind !== 'literal') throw new Error(`${name} is not a union of literals`);
    return a.value;
  });
}

export function describe(t) {
  switch (t.kind) {
    case 'union':
      return t.of.map(describe).join(' | ');
    case 'intersection':
      return t.of.map(describe).join(' & ');
    case 'array':
      return `${describe(t.of)}[]`;
    case 'literal':
      return JSON.stringify(t.value);
    case 'ref':
      return t.name;
    case 'generic':
      return `${t.name}<${t.args.map(describe).join(', ')}>`;
    case 'object':
      return '{…}';
    case 'keyof':
      return `keyof ${t.of}`;
    default:
      return t.kind;
  }
}
