// The reference validator (Ajv: draft-07 and 2020-12) and a call generator for argument schemas,
// shared by the reference cross-check (schema-reference.test.mjs) and the corpus test
// (mcp-corpus.test.mjs). Every generated call is judged by the reference, never assumed.
import { createRequire } from 'node:module';
import { checkToolCall } from '@netaclaw/tool-policy';

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default;
const Ajv2020 = require('ajv/dist/2020').default;

// `format` is an annotation (2020-12's default); unknown keywords are ignored, as the drafts say.
const OPTIONS = { strict: false, validateFormats: false, allErrors: false };
const engines = [
  ['draft-07', new Ajv(OPTIONS)],
  ['2020-12', new Ajv2020(OPTIONS)],
];

/**
 * The reference's verdict on `data` under `schema`: `false` when any engine that can read the schema
 * rejects it (a schema naming its draft is read by that draft's engine only), `true` when every one
 * accepts, `null` when none can read the schema.
 */
export function reference(schema, data) {
  const named = typeof schema === 'object' && schema !== null && typeof schema.$schema === 'string' ? schema.$schema : '';
  let verdict = null;
  for (const [draft, ajv] of engines) {
    if (named.includes('draft-07') && draft !== 'draft-07') continue;
    if (named.includes('2020-12') && draft !== '2020-12') continue;
    let validate;
    try {
      validate = ajv.compile(schema);
    } catch {
      continue;
    }
    if (!validate(data)) return false;
    verdict = true;
  }
  return verdict;
}

const POLICY = { workspaceRoots: ['/srv/w'], allowShell: false, readonly: false };
const route = (name) => ({
  name,
  status: 'main-process-proxied',
  route: 'main-process-proxy',
  blockedReason: 'requires_main_process_proxy',
  reasons: ['requires_main_process_proxy'],
  strategy: 'auto',
  executionMode: 'parallel',
});

/** The package's verdict: `checkToolCall` of a custom tool with these parameters. */
export function decide(schema, args) {
  return checkToolCall({
    policy: POLICY,
    routes: [route('t')],
    catalog: [{ name: 't', toolset: 'x', workerRoutingHint: 'main-process-proxy', requiresWrite: false, parameters: schema }],
    call: { name: 't', arguments: args },
  });
}

/** A local `$ref`'s target. */
function resolve(root, ref) {
  if (ref === '#') return root;
  let here = root;
  for (const token of ref.slice(2).split('/')) {
    here = here?.[decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return here;
}

const FORMATS = {
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  uri: 'https://example.com/a',
  url: 'https://example.com/a',
  email: 'a@example.com',
};
const STRINGS = ['a', 'abc', 'A1', '=A1', 'x-1', 'TimeSlicerStyleLight1', 'main', '0'];

/**
 * A value for `schema` meant to be valid (the caller checks it with the reference): `full` includes
 * every property, otherwise only the required ones.
 */
export function generate(root, schema, full = true, depth = 0) {
  if (schema === true || schema === undefined) return 'x';
  if (depth > 20 || schema === false) return null;
  if (schema.$ref)
    return generate(root, { ...resolve(root, schema.$ref), ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) }, full, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    const merged = { ...schema, allOf: undefined };
    for (const s of schema.allOf) {
      const part = s.$ref ? resolve(root, s.$ref) : s;
      Object.assign(merged, part, {
        properties: { ...merged.properties, ...part.properties },
        required: [...(merged.required ?? []), ...(part.required ?? [])],
      });
    }
    delete merged.allOf;
    return generate(root, merged, full, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key])) {
      const rest = { ...schema };
      delete rest[key];
      // The first branch that is not `null`, with the schema's other keywords.
      const options = [...schema[key]].sort((a, b) => (a?.type === 'null') - (b?.type === 'null'));
      for (const option of options) {
        const value = generate(root, { ...rest, ...(option.$ref ? resolve(root, option.$ref) : option) }, full, depth + 1);
        if (reference(root.$defs || root.definitions ? { ...schema, $defs: root.$defs, definitions: root.definitions } : schema, value) !== false) return value;
      }
      return generate(root, { ...rest, ...options[0] }, full, depth + 1);
    }
  }
  const types = [schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')].flat();
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': {
      const out = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (full || (schema.required ?? []).includes(name)) out[name] = generate(root, property, full, depth + 1);
      }
      for (const name of schema.required ?? []) if (!(name in out)) out[name] = 'x';
      return out;
    }
    case 'array': {
      const n = Math.max(schema.minItems ?? 0, full ? 1 : 0);
      const items = [];
      for (let i = 0; i < n; i++) {
        const s = Array.isArray(schema.prefixItems) ? (schema.prefixItems[i] ?? schema.items) : schema.items;
        items.push(generate(root, s, full, depth + 1));
      }
      // uniqueItems: numbers and strings made distinct.
      return items.map((v, i) => (schema.uniqueItems && typeof v === 'number' ? v + i : schema.uniqueItems && typeof v === 'string' && i ? v + i : v));
    }
    case 'integer':
    case 'number': {
      let x = schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1);
      if (typeof schema.maximum === 'number' && x > schema.maximum) x = schema.maximum;
      if (schema.multipleOf) x = Math.ceil(x / schema.multipleOf) * schema.multipleOf;
      return type === 'integer' ? Math.ceil(x) : x;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (FORMATS[schema.format]) return FORMATS[schema.format];
      const length = Math.max(schema.minLength ?? 0, 1);
      for (const s of STRINGS) {
        const text = s.padEnd(length, 'a');
        if ((!schema.pattern || new RegExp(schema.pattern, 'u').test(text)) && (schema.maxLength === undefined || [...text].length <= schema.maxLength))
          return text;
      }
      return 'a'.repeat(length);
    }
  }
}

/** A valid call for `schema`, checked by the reference: every property, or only the required ones. */
export function validCall(schema) {
  for (const full of [true, false]) {
    const value = generate(schema, schema, full);
    if (reference(schema, value) === true) return value;
  }
  return undefined;
}

const WRONG = [{ __wrong: true }, 12345.5, 'x', true, [], null, -1, ''];

/** An invalid call derived from a valid one, checked by the reference: a required property left out,
 * a property of a wrong kind, an extra property, or arguments that are not an object. */
export function invalidCall(schema, valid) {
  const candidates = [];
  for (const name of schema.required ?? []) {
    const copy = { ...valid };
    delete copy[name];
    candidates.push(copy);
  }
  for (const name of Object.keys(schema.properties ?? {})) {
    for (const wrong of WRONG) candidates.push({ ...valid, [name]: wrong });
  }
  candidates.push({ ...valid, __extra__: 1 }, 'not an object', []);
  return candidates.find((c) => reference(schema, c) === false);
}
