// The argument check against a well-kept validator (Ajv 8, draft-07 and 2020-12) on the same schemas
// and arguments: every keyword of the subset, with values on each side of it, and every tool of the
// MCP corpus with calls bent one property at a time. The package must never allow what the reference
// rejects; every case where it denies what the reference accepts is listed below (STRICTER), and the
// list is asserted whole, so that it only changes knowingly.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { decide, reference, validCall } from './lib/schema.mjs';

const obj = (properties, extra = {}) => ({ type: 'object', properties, ...extra });
const D7 = 'http://json-schema.org/draft-07/schema#';
const D2020 = 'https://json-schema.org/draft/2020-12/schema';

/** [label, schema, argument values]. */
const CASES = [
  ['type list with null', obj({ a: { type: ['string', 'null'] } }), [{ a: 'x' }, { a: null }, { a: 1 }, {}]],
  ['integer', obj({ a: { type: 'integer' } }), [{ a: 1 }, { a: 1.0 }, { a: 1.5 }, { a: '1' }]],
  ['anyOf optional', obj({ a: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } }), [{ a: 'x' }, { a: null }, { a: 2 }, { a: [] }]],
  ['oneOf', obj({ a: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 2 }] } }), [{ a: 1 }, { a: 2.5 }, { a: 3 }, { a: 'x' }]],
  ['allOf', { allOf: [{ type: 'object', required: ['a'] }, obj({ a: { maxLength: 2 } })] }, [{ a: 'xy' }, { a: 'xyz' }, {}, { a: 5 }]],
  ['not', obj({ a: { not: { type: 'string' } } }), [{ a: 1 }, { a: 'x' }, {}]],
  ['const', obj({ a: { const: 'go' } }), [{ a: 'go' }, { a: 'stop' }, { a: null }]],
  ['const object', obj({ a: { const: { k: [1, 2] } } }), [{ a: { k: [1, 2] } }, { a: { k: [1.0, 2] } }, { a: { k: [2, 1] } }]],
  ['enum', obj({ a: { enum: ['x', 1, null, [1]] } }), [{ a: 'x' }, { a: 1 }, { a: null }, { a: [1] }, { a: 'y' }, { a: [2] }]],
  ['$ref $defs', { $schema: D2020, $defs: { p: { type: 'string', minLength: 2 } }, ...obj({ a: { $ref: '#/$defs/p' } }) }, [{ a: 'xy' }, { a: 'x' }, { a: 3 }]],
  ['$ref definitions', { $schema: D7, definitions: { p: { type: 'integer' } }, ...obj({ a: { $ref: '#/definitions/p' } }) }, [{ a: 1 }, { a: 'x' }]],
  [
    '$ref recursive',
    { $defs: { n: obj({ c: { type: 'array', items: { $ref: '#/$defs/n' } } }) }, $ref: '#/$defs/n' },
    [{ c: [{ c: [] }] }, { c: [{ c: [1] }] }, { c: 1 }],
  ],
  ['$ref with siblings', { $defs: { s: { type: 'string' } }, ...obj({ a: { $ref: '#/$defs/s', maxLength: 1 } }) }, [{ a: 'x' }, { a: 'xy' }]],
  ['exclusive bounds', obj({ a: { exclusiveMinimum: 0, exclusiveMaximum: 10 } }), [{ a: 0 }, { a: 0.1 }, { a: 9.9 }, { a: 10 }, { a: 'x' }]],
  ['minimum maximum', obj({ a: { minimum: 1, maximum: 2 } }), [{ a: 1 }, { a: 2 }, { a: 0.9 }, { a: 2.1 }]],
  ['multipleOf', obj({ a: { multipleOf: 0.1 } }), [{ a: 0.3 }, { a: 0.5 }, { a: 1 }, { a: 0.25 }, { a: 7 }]],
  ['multipleOf integer', obj({ a: { multipleOf: 3 } }), [{ a: 9 }, { a: 10 }, { a: -3 }, { a: 1e308 }]],
  ['pattern', obj({ a: { pattern: '^[a-z]+\\d{2}$' } }), [{ a: 'ab12' }, { a: 'AB12' }, { a: 'ab1' }, { a: 'ab12\n' }]],
  ['pattern unanchored', obj({ a: { pattern: 'b.c' } }), [{ a: 'abxcd' }, { a: 'ab\ncd' }, { a: 'ab\rc' }, { a: 'ab\u2028c' }, { a: 'abéc' }]],
  ['pattern \\s \\S', obj({ a: { pattern: '^\\S+\\s\\S+$' } }), [{ a: 'a b' }, { a: 'a\u00a0b' }, { a: 'a\u3000b' }, { a: 'ab' }, { a: 'a\tb' }]],
  ['pattern \\w \\d', obj({ a: { pattern: '^\\w+$' } }), [{ a: 'a_1' }, { a: 'é' }, { a: '١' }]],
  ['pattern class', obj({ a: { pattern: '^[^\\s/]+$' } }), [{ a: 'ab' }, { a: 'a/b' }, { a: 'a\u00a0b' }]],
  ['pattern lookahead (refused)', obj({ a: { pattern: '^(?=a)' } }), [{ a: 'ab' }, { a: 'b' }]],
  ['pattern \\S in a class (refused)', obj({ a: { pattern: '^[\\S]+$' } }), [{ a: 'ab' }, { a: 'a b' }]],
  [
    'patternProperties',
    { type: 'object', patternProperties: { '^x_': { type: 'integer' } }, additionalProperties: false },
    [{ x_a: 1 }, { x_a: 'a' }, { y: 1 }, {}],
  ],
  [
    'patternProperties and properties',
    { type: 'object', properties: { x_a: { minimum: 5 } }, patternProperties: { '^x_': { maximum: 6 } } },
    [{ x_a: 5 }, { x_a: 7 }, { x_a: 4 }],
  ],
  ['propertyNames', { type: 'object', propertyNames: { pattern: '^[a-z]+$', maxLength: 3 } }, [{ ab: 1 }, { Ab: 1 }, { abcd: 1 }, {}]],
  [
    'uniqueItems',
    obj({ a: { type: 'array', uniqueItems: true } }),
    [
      { a: [1, 2] },
      { a: [1, 1.0] },
      {
        a: [
          { x: 1, y: 2 },
          { y: 2, x: 1 },
        ],
      },
      { a: [[1], [1]] },
      { a: ['1', 1] },
    ],
  ],
  ['min/maxProperties', { type: 'object', minProperties: 1, maxProperties: 2 }, [{}, { a: 1 }, { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }]],
  [
    'prefixItems',
    { $schema: D2020, ...obj({ a: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } }) },
    [{ a: ['x', 1] }, { a: ['x'] }, { a: [1, 1] }, { a: ['x', 1, 2] }],
  ],
  [
    'prefixItems then items',
    { $schema: D2020, ...obj({ a: { prefixItems: [{ type: 'string' }], items: { type: 'integer' } } }) },
    [{ a: ['x', 1, 2] }, { a: ['x', 'y'] }],
  ],
  [
    'items array and additionalItems',
    { $schema: D7, ...obj({ a: { items: [{ type: 'string' }], additionalItems: { type: 'boolean' } } }) },
    [{ a: ['x', true] }, { a: ['x', 1] }, { a: [1] }],
  ],
  [
    'items array, additionalItems false',
    { $schema: D7, ...obj({ a: { items: [{ type: 'string' }], additionalItems: false } }) },
    [{ a: ['x'] }, { a: ['x', 'y'] }],
  ],
  [
    'items schema',
    obj({ a: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 } }),
    [{ a: [1] }, { a: [] }, { a: [1, 2, 3] }, { a: [1, 'x'] }],
  ],
  ['dependentRequired', { $schema: D2020, type: 'object', dependentRequired: { a: ['b'] } }, [{ a: 1, b: 2 }, { b: 2 }, { a: 1 }]],
  [
    'dependencies (draft 7)',
    { $schema: D7, type: 'object', dependencies: { a: ['b'], c: { required: ['d'] } } },
    [{ a: 1, b: 1 }, { a: 1 }, { c: 1 }, { c: 1, d: 1 }],
  ],
  [
    'contains',
    obj({ a: { type: 'array', contains: { const: 1 }, minContains: 2, maxContains: 3 } }),
    [{ a: [1, 1] }, { a: [1] }, { a: [1, 1, 1, 1] }, { a: [] }],
  ],
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test
  ['if then else', { type: 'object', if: { required: ['a'] }, then: { required: ['b'] }, else: { required: ['c'] } }, [{ a: 1, b: 1 }, { a: 1 }, { c: 1 }, {}]],
  [
    'annotations',
    obj({
      a: {
        type: 'string',
        title: 'A',
        description: 'd',
        examples: ['x'],
        default: 'x',
        deprecated: true,
        readOnly: false,
        writeOnly: false,
        format: 'uuid',
        'x-extra': 1,
        $comment: 'c',
      },
    }),
    [{ a: 'not-a-uuid' }, { a: 1 }],
  ],
  ['additionalProperties schema', obj({ a: {} }, { additionalProperties: { type: 'boolean' } }), [{ a: 1, b: true }, { b: 1 }]],
  ['boolean subschemas', obj({ a: true, b: false }), [{ a: 1 }, { b: 1 }]],
  ['unknown keyword (refused)', obj({ a: { type: 'string', unevaluatedProperties: false } }), [{ a: 'x' }]],
  ['arguments not an object', {}, ['x', 1, [], {}]],
];

/**
 * Every case the package denies and the reference accepts: `label: data`. A schema the package
 * refuses at registration, and arguments that are not an object (a tool call's arguments are an
 * object whatever the schema says).
 */
const STRICTER = [
  'pattern lookahead (refused): {"a":"ab"}',
  'pattern \\S in a class (refused): {"a":"ab"}',
  'unknown keyword (refused): {"a":"x"}',
  'arguments not an object: "x"',
  'arguments not an object: 1',
  'arguments not an object: []',
];

/** Runs one (schema, data) pair on both sides; returns `null`, or a line for the lists. */
function compare(label, schema, data) {
  const expected = reference(schema, data);
  assert.notEqual(expected, null, `${label}: the reference reads the schema`);
  const answer = decide(schema, data);
  const allowed = answer.decision !== 'denied';
  const line = `${label}: ${JSON.stringify(data)}`;
  if (allowed && !expected) return { unsafe: line };
  if (!allowed && expected) return { stricter: line, detail: answer.detail };
  return null;
}

test('each keyword: never allowed where the reference rejects; every stricter case listed', () => {
  const unsafe = [];
  const stricter = [];
  let pairs = 0;
  for (const [label, schema, values] of CASES) {
    for (const data of values) {
      pairs++;
      const r = compare(label, schema, data);
      if (r?.unsafe) unsafe.push(r.unsafe);
      if (r?.stricter) stricter.push(r.stricter);
    }
  }
  process.stdout.write(`# schema reference: ${pairs} pairs, ${stricter.length} stricter than the reference\n`);
  assert.deepEqual(unsafe, []);
  assert.deepEqual(stricter, STRICTER);
});

test('every corpus tool, its valid call bent one property at a time, agrees with the reference', () => {
  const dir = new URL('../backend/test/fixtures/mcp-corpus/', import.meta.url);
  const bends = [null, 0, -1, 1.5, 'x', '', true, [], [1, 1], {}, { k: 'v' }];
  const unsafe = [];
  const stricter = [];
  let pairs = 0;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const server = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    for (const tool of server.tools) {
      const schema = tool.inputSchema ?? { type: 'object' };
      const valid = validCall(schema);
      assert.notEqual(valid, undefined, `${server.server}/${tool.name}: a valid call`);
      const variants = [valid, {}];
      for (const name of Object.keys(schema.properties ?? {})) {
        for (const bend of bends) variants.push({ ...valid, [name]: bend });
        const without = { ...valid };
        delete without[name];
        variants.push(without);
      }
      for (const data of variants) {
        pairs++;
        const r = compare(`${server.server}/${tool.name}`, schema, data);
        if (r?.unsafe) unsafe.push(r.unsafe);
        if (r?.stricter) stricter.push(`${r.stricter} (${r.detail})`);
      }
    }
  }
  process.stdout.write(`# schema reference on the corpus: ${pairs} pairs, ${stricter.length} stricter than the reference\n`);
  assert.deepEqual(unsafe, []);
  assert.deepEqual(stricter, []);
});

test('random patterns: where the engine takes a pattern, it answers as ECMA-262 RegExp (u flag) on every string', () => {
  // A seeded generator (xorshift), so that a failure replays.
  let seed = 0x2545f491;
  const rand = (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const pick = (list) => list[rand(list.length)];
  const ATOMS = [
    'a',
    'b',
    '.',
    '\\s',
    '\\S',
    '\\d',
    '\\w',
    '\\W',
    '\\b',
    '\\B',
    '[ab]',
    '[^a]',
    '[a-c\\d]',
    '[\\s_]',
    '\\n',
    '\\u00e9',
    '\\.',
    '^',
    '$',
    ' ',
    '\\u{1F600}',
    '[\\b]',
    '\\x41',
    '[^\\d\\s]',
    '\\/',
  ];
  const QUANT = ['', '', '', '*', '+', '?', '{2}', '{1,2}', '{0,}', '*?', '+?'];
  function pattern(depth) {
    let out = '';
    const n = 1 + rand(4);
    for (let i = 0; i < n; i++) {
      let atom = depth < 2 && rand(5) === 0 ? `(${rand(2) ? '?:' : ''}${pattern(depth + 1)}${rand(3) === 0 ? `|${pattern(depth + 1)}` : ''})` : pick(ATOMS);
      if (!['^', '$', '\\b', '\\B'].includes(atom)) atom += pick(QUANT);
      out += atom;
    }
    return out;
  }
  const CHARS = ['a', 'b', 'c', '1', '_', ' ', '\n', '\r', '\u2028', '\u00a0', '\u3000', '\u00e9', '.', '\ufeff', '\u{1F600}', 'A', '\b'];
  const text = () => Array.from({ length: rand(6) }, () => pick(CHARS)).join('');
  let compared = 0;
  let refused = 0;
  const disagreements = [];
  for (let i = 0; i < 600; i++) {
    const p = pattern(0);
    let js;
    try {
      js = new RegExp(p, 'u');
    } catch {
      continue;
    }
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: p } } };
    for (let j = 0; j < 8; j++) {
      const s = text();
      const answer = decide(schema, { a: s });
      if (answer.decision === 'denied' && /is not supported/.test(answer.detail)) {
        if (process.env.SHOW_REFUSED) process.stdout.write(`# refused: ${answer.detail}\n`);
        refused++;
        break;
      }
      compared++;
      if ((answer.decision !== 'denied') !== js.test(s)) disagreements.push(`${JSON.stringify(p)} on ${JSON.stringify(s)}: ${answer.detail}`);
    }
  }
  process.stdout.write(`# random patterns: ${compared} matches compared with RegExp, ${refused} patterns refused\n`);
  assert.deepEqual(disagreements, []);
  assert.ok(compared > 1000, `${compared} compared`);
});
