#!/usr/bin/env node
// No rule in TypeScript: fails when a file of the pages (www/src) or of the backend (js/backend/src)
// names the package's vocabulary itself — a reason code, a route or status value, a strategy or hint,
// a list of capabilities, crew roles, kinds, toolsets or row fields — instead of reading it from
// @netaclaw/tool-policy. The vocabulary is the package's own `catalogInfo()`; this file holds none.
//
//   node scripts/check-no-rules.mjs [--root DIR] [--json]
//
// What counts as naming it (string literals only; comments and page text do not count):
// - a literal equal to a value with `_` or `-` in it (`'workspace_root_required'`, `'worker-local'`,
//   `'force-disabled'`): such a value exists only because the package defines it;
// - a plain-word value (`'text'`, `'master'`, `'base'`, `'label'`) compared (`=== 'text'`, `case 'sub':`),
//   or listed: two different values of one vocabulary in consecutive literals (`['text', 'vision']`,
//   `'master' | 'sub'`, `<el-option value="text" />…<el-option value="vision" />`) or inside one literal
//   (`'text|vision|multimodal'`).
// A line may name a code on purpose (the runtime answers `tool_not_offered` itself) when it carries the
// marker comment `policy-vocabulary: <why>`; a marker on a line with nothing to allow is an error too.
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const MARKER = 'policy-vocabulary:';
const SCANNED = ['www/src', 'js/backend/src'];
const EXTENSIONS = ['.ts', '.vue', '.js', '.mjs', '.cjs', '.tsx'];
/** Literals this far apart (characters of code between them) still form one list. */
const LIST_GAP = 160;

export function vocabulary(info) {
  const groups = new Map();
  const add = (group, values) => {
    for (const v of values) {
      if (!groups.has(v)) groups.set(v, new Set());
      groups.get(v).add(group);
    }
  };
  for (const [group, values] of Object.entries(info.vocabulary)) add(group, values);
  add(
    'toolset',
    info.toolsets.map((t) => t.name),
  );
  add('row field', [...info.humanFields, ...info.mirrorFields]);
  return groups;
}

const distinctive = (value) => /[_-]/.test(value);

// ---------------------------------------------------------------- tokenizer (JS / TS expressions)

const REGEX_BEFORE = new Set([...'(,=:[!&|?{};+-*%<>~^']);
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'in', 'of', 'delete', 'void', 'throw', 'new', 'instanceof', 'yield', 'await']);

/**
 * The string literals of a piece of JavaScript/TypeScript, with their offsets (`base` added), and the
 * comments (text and offset). Template literals give one literal per static part.
 */
export function scanScript(src, base = 0) {
  const literals = [];
  const comments = [];
  let i = 0;
  const n = src.length;
  let lastSignificant = ''; // last non-space character outside strings and comments
  let lastWord = '';
  const braceStack = []; // for `${ … }` inside template literals: the depth at which each opened

  function readQuoted(q) {
    const start = i;
    i += 1;
    let value = '';
    while (i < n && src[i] !== q) {
      if (src[i] === '\\') {
        value += src[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (src[i] === '\n') break; // unterminated: stop at the line end
      value += src[i];
      i += 1;
    }
    i += 1;
    literals.push({ value, start: base + start, end: base + i });
  }

  // a template literal from its backtick (or from the `}` closing a substitution) to its end or next `${`
  function readTemplate() {
    const start = i;
    i += 1;
    let value = '';
    while (i < n) {
      const c = src[i];
      if (c === '\\') {
        value += src[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (c === '`') {
        i += 1;
        literals.push({ value, start: base + start, end: base + i });
        return;
      }
      if (c === '$' && src[i + 1] === '{') {
        literals.push({ value, start: base + start, end: base + i });
        i += 2;
        braceStack.push(0);
        return;
      }
      value += c;
      i += 1;
    }
    literals.push({ value, start: base + start, end: base + i });
  }

  while (i < n) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      comments.push({ text: src.slice(i, stop), start: base + i });
      i = stop;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      comments.push({ text: src.slice(i, stop), start: base + i });
      i = stop;
      continue;
    }
    if (c === '/' && (lastSignificant === '' || REGEX_BEFORE.has(lastSignificant) || REGEX_KEYWORDS.has(lastWord))) {
      // a regular expression literal
      i += 1;
      let inClass = false;
      while (i < n && src[i] !== '\n') {
        if (src[i] === '\\') {
          i += 2;
          continue;
        }
        if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        else if (src[i] === '/' && !inClass) break;
        i += 1;
      }
      i += 1;
      while (i < n && /[a-z]/i.test(src[i])) i += 1;
      lastSignificant = 'x';
      lastWord = '';
      continue;
    }
    if (c === "'" || c === '"') {
      readQuoted(c);
      lastSignificant = 'x';
      lastWord = '';
      continue;
    }
    if (c === '`') {
      readTemplate();
      lastSignificant = 'x';
      lastWord = '';
      continue;
    }
    if (braceStack.length > 0) {
      if (c === '{') braceStack[braceStack.length - 1] += 1;
      if (c === '}') {
        if (braceStack[braceStack.length - 1] === 0) {
          braceStack.pop();
          readTemplate(); // the rest of the template literal
          lastSignificant = 'x';
          lastWord = '';
          continue;
        }
        braceStack[braceStack.length - 1] -= 1;
      }
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(src[j])) j += 1;
      lastWord = src.slice(i, j);
      lastSignificant = 'x';
      i = j;
      continue;
    }
    if (!/\s/.test(c)) {
      lastSignificant = c;
      lastWord = '';
    }
    i += 1;
  }
  return { literals, comments };
}

// ---------------------------------------------------------------- Vue single-file components

/**
 * The literals of a .vue file: its <script> blocks as script, and in its <template> the bound
 * attributes (`:x`, `@x`, `v-…`, `#x`) and `{{ }}` as script, static attribute values as literals.
 * Page text between tags is not code and is left out.
 */
export function scanVue(src) {
  const literals = [];
  const comments = [];
  const scriptRe = /<script\b[^>]*>([\s\S]*?)<\/script>/g;
  let m;
  while ((m = scriptRe.exec(src))) {
    const start = m.index + m[0].indexOf('>') + 1;
    const r = scanScript(m[1], start);
    literals.push(...r.literals);
    comments.push(...r.comments);
  }
  const open = src.indexOf('<template');
  const close = src.lastIndexOf('</template>');
  if (open !== -1 && close > open) {
    const tpl = src.slice(open, close);
    const masked = tpl.replace(/<!--[\s\S]*?-->/g, (c) => ' '.repeat(c.length));
    const tagRe = /<([A-Za-z][\w-]*)((?:\s+[^\s"'=<>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'))?)*)\s*\/?>/g;
    while ((m = tagRe.exec(masked))) {
      const attrsAt = open + m.index + 1 + m[1].length;
      const attrRe = /([^\s"'=<>/]+)(?:\s*=\s*("([^"]*)"|'([^']*)'))?/g;
      let a;
      while ((a = attrRe.exec(m[2]))) {
        if (a[2] === undefined) continue;
        const value = a[3] ?? a[4];
        const valueAt = attrsAt + a.index + a[0].indexOf(a[2]) + 1;
        if (/^(:|@|#|v-)/.test(a[1])) {
          literals.push(...scanScript(value, valueAt).literals);
        } else {
          literals.push({ value, start: valueAt - 1, end: valueAt + value.length + 1 });
        }
      }
    }
    const mustache = /\{\{([\s\S]*?)\}\}/g;
    while ((m = mustache.exec(masked))) {
      literals.push(...scanScript(m[1], open + m.index + 2).literals);
    }
    literals.sort((x, y) => x.start - y.start);
  }
  return { literals, comments };
}

// ---------------------------------------------------------------- findings

function lineStarts(src) {
  const starts = [0];
  for (let i = 0; i < src.length; i += 1) if (src[i] === '\n') starts.push(i + 1);
  return starts;
}

function lineOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function sharedGroup(groups, a, b) {
  const ga = groups.get(a);
  const gb = groups.get(b);
  if (!ga || !gb || a === b) return null;
  for (const g of ga) if (gb.has(g)) return g;
  return null;
}

/** The last word of a vocabulary's name, lower case: `routingStrategy` → `strategy`, `crewRole` → `role`. */
const keyWord = (group) =>
  group
    .split(/(?=[A-Z])|\s+/)
    .pop()
    .toLowerCase();

/**
 * A plain word compared with something named after its vocabulary (`row.route === 'disabled'`,
 * `m.workerRoutingHint !== 'local'`, `switch (agent.crewRole) { case 'master':`): the vocabulary, else null.
 * `setting === 'auto'` or `key !== 'disabled'` compare other things and are not counted.
 */
function comparedGroup(src, lit, groups) {
  let subject = null;
  const before = src.slice(Math.max(0, lit.start - 200), lit.start);
  const after = src.slice(lit.end, lit.end + 200);
  let m = /([\w$]+)[\])?!]*\s*[!=]==?\s*$/.exec(before);
  if (m) subject = m[1];
  if (!subject && (m = /^\s*[!=]==?\s*[\w$.?!]*?([\w$]+)(?![\w$.?])/.exec(after))) subject = m[1];
  if (!subject && /\bcase\s*$/.test(before)) {
    const switches = [...src.slice(Math.max(0, lit.start - 3000), lit.start).matchAll(/switch\s*\(([^)]*)\)/g)];
    const sw = switches[switches.length - 1];
    if (sw && (m = /([\w$]+)[\])?!]*\s*$/.exec(sw[1]))) subject = m[1];
  }
  if (!subject) return null;
  const s = subject.toLowerCase();
  for (const g of groups) if (s.includes(keyWord(g))) return g;
  return null;
}

/** Everything a file names of the vocabulary: `[{ line, value, why }]`, and its marker lines. */
export function findInSource(src, isVue, groups) {
  const { literals, comments } = isVue ? scanVue(src) : scanScript(src);
  const starts = lineStarts(src);
  const found = [];
  const add = (lit, why) => found.push({ line: lineOf(starts, lit.start), value: lit.value, why });

  for (let k = 0; k < literals.length; k += 1) {
    const lit = literals[k];
    const g = groups.get(lit.value);
    if (g && distinctive(lit.value)) {
      add(lit, `names the ${[...g].join('/')} value "${lit.value}"`);
      continue;
    }
    if (g) {
      const compared = comparedGroup(src, lit, g);
      if (compared) {
        add(lit, `compares a ${compared} with "${lit.value}"`);
        continue;
      }
      // a list: the next literal that is a different value of the same vocabulary, close by
      const next = literals[k + 1];
      if (next && next.start - lit.end <= LIST_GAP && !/[;{}]|=>/.test(src.slice(lit.end, next.start).replace(/\{\{|\}\}/g, ''))) {
        const shared = sharedGroup(groups, lit.value, next.value);
        if (shared) {
          add(lit, `lists ${shared} values ("${lit.value}", "${next.value}", …)`);
          continue;
        }
      }
    }
    // a list inside one literal: `text|vision|multimodal`, `master, sub`
    const words = lit.value.split(/\s*[|,/]\s*|\s+/).filter((w) => groups.has(w));
    for (let w = 0; w + 1 < words.length; w += 1) {
      const shared = sharedGroup(groups, words[w], words[w + 1]);
      if (shared && /[|,/]/.test(lit.value)) {
        add(lit, `lists ${shared} values inside a string ("${lit.value}")`);
        break;
      }
    }
  }
  const markers = new Map();
  for (const c of comments) {
    const at = c.text.indexOf(MARKER);
    if (at === -1) continue;
    const why = c.text
      .slice(at + MARKER.length)
      .replace(/\*\/\s*$/, '')
      .trim();
    markers.set(lineOf(starts, c.start + at), why);
  }
  return { found, markers };
}

function listFiles(root, dir) {
  const abs = join(root, dir);
  let st;
  try {
    st = statSync(abs);
  } catch {
    return [];
  }
  if (!st.isDirectory()) return [dir];
  const out = [];
  for (const e of readdirSync(abs).sort()) {
    if (e === 'node_modules' || e === 'dist') continue;
    const sub = join(dir, e);
    if (statSync(join(root, sub)).isDirectory()) out.push(...listFiles(root, sub));
    else if (EXTENSIONS.some((x) => e.endsWith(x)) && !e.endsWith('.d.ts')) out.push(sub);
  }
  return out;
}

/** Checks the tree at `root`: `{ errors: string[], allowed: number, files: number }`. */
export function check(root, info) {
  const groups = vocabulary(info);
  const errors = [];
  let allowed = 0;
  let files = 0;
  for (const dir of SCANNED) {
    for (const file of listFiles(root, dir)) {
      files += 1;
      const rel = file.split('\\').join('/');
      const src = readFileSync(join(root, file), 'utf8');
      const { found, markers } = findInSource(src, rel.endsWith('.vue'), groups);
      const used = new Set();
      for (const f of found) {
        const why = markers.get(f.line);
        if (why !== undefined && why !== '') {
          used.add(f.line);
          allowed += 1;
          continue;
        }
        errors.push(`${rel}:${f.line}: ${f.why}${why === '' ? ` (its "${MARKER}" marker gives no reason)` : ''}`);
      }
      for (const [line] of markers) {
        if (!used.has(line)) errors.push(`${rel}:${line}: a "${MARKER}" marker where nothing of the vocabulary is named (remove it)`);
      }
    }
  }
  return { errors, allowed, files };
}

function loadPackage(root) {
  const require = createRequire(import.meta.url);
  const candidates = [join(root, 'pkg', 'node', 'netaclaw_tool_policy.js'), resolve(here, '..', 'pkg', 'node', 'netaclaw_tool_policy.js')];
  for (const c of candidates) {
    try {
      return require(c);
    } catch {
      /* next */
    }
  }
  throw new Error('cannot load the package from pkg/node: build it first (scripts/build-pkg.sh)');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt === -1 ? resolve(here, '..') : resolve(args[rootAt + 1]);
  const pkg = loadPackage(resolve(here, '..'));
  const { errors, allowed, files } = check(root, pkg.catalogInfo());
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ errors, allowed, files })}\n`);
  } else {
    for (const e of errors) process.stdout.write(`${e}\n`);
    const where = relative(process.cwd(), root) || '.';
    process.stdout.write(
      errors.length === 0
        ? `check-no-rules: ${files} files of ${SCANNED.join(' and ')} in ${where} name no vocabulary of the package (${allowed} marked lines)\n`
        : `check-no-rules: ${errors.length} restated rule(s) in ${SCANNED.join(' and ')}: read them from @netaclaw/tool-policy (catalogInfo, labels, toolRowView, agentResolveInput, profileRouteDiff)\n`,
    );
  }
  process.exit(errors.length === 0 ? 0 : 1);
}
