// The check of scripts/layers.mjs on trees it is given in temp dirs: a planted cycle and a planted
// import against a rule fail it, each named; a copy of the project's own trees passes until an import
// is planted in it; imports are read from code only (not comments or strings), in .ts and .vue files,
// static, dynamic and require() alike; a stale exception fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, EXCEPTIONS, LOOSE_WHY, RULES, TREES } from './layers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const script = join(here, 'layers.mjs');

/** A tree with the given files (path → text); both trees exist, empty unless given. */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  for (const t of TREES) mkdirSync(join(root, t), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

function run(root) {
  const r = spawnSync(process.execPath, [script, '--root', root, '--json'], { encoding: 'utf8' });
  rmSync(root, { recursive: true, force: true });
  assert.ok(r.stdout, r.stderr);
  return { code: r.status, ...JSON.parse(r.stdout) };
}

/** The report of the check with no exceptions (the project's list names files a planted tree lacks). */
function bare(root) {
  try {
    return check(root, { exceptions: [] });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('a clean tree passes', () => {
  const r = bare(
    tree({
      'js/backend/src/wire/errors.ts': 'export class AppError extends Error {}\n',
      'js/backend/src/service/tool.ts':
        "import { AppError } from '../wire/errors';\nimport type { Limits } from '../runtime';\nexport const e = AppError;\nexport type L = Limits;\n",
      'js/backend/src/runtime/index.ts': "export type { Limits } from './host';\n",
      'js/backend/src/runtime/host.ts': 'export interface Limits { n: number }\n',
      'www/src/server/api.ts': "import { sentence } from './errors';\nexport const api = sentence;\n",
      'www/src/server/errors.ts': "export const sentence = 'x';\n",
    }),
  );
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.trees['js/backend/src'], { files: 4, imports: 3, cycles: 0 });
});

test('a planted cycle and a planted upward import both fail, each named with its file and line', () => {
  const r = bare(
    tree({
      'js/backend/src/wire/errors.ts': "import { check } from './validate';\nexport const e = check;\n",
      'js/backend/src/wire/validate.ts': "import { e } from './errors';\nexport const check = () => e;\n",
      'js/backend/src/service/tool.ts': "// reads and stores\nimport { WorkerHost } from '../runtime';\nexport const h = WorkerHost;\n",
      'js/backend/src/runtime/index.ts': "export { WorkerHost } from './host';\n",
      'js/backend/src/runtime/host.ts': 'export class WorkerHost {}\n',
    }),
  );
  assert.equal(r.errors.length, 2, r.errors.join('\n'));
  assert.equal(r.errors[0], 'js/backend/src: import cycle: wire/errors.ts → wire/validate.ts → wire/errors.ts');
  assert.match(r.errors[1], /^js\/backend\/src\/service\/tool\.ts:2 imports runtime\/index\.ts: service\/ stores and reads/);
});

test('outside runtime/, service/ and the doors take the runtime through its front door (runtime/index.ts) alone, types too', () => {
  const frontDoor = RULES.find((x) => x.tree === 'js/backend/src' && x.except?.includes('runtime/index.ts')).why;
  const r = bare(
    tree({
      'js/backend/src/service/a.ts': "import type { Limits } from '../runtime/host';\nimport type { L } from '../runtime';\nexport type T = Limits | L;\n",
      'js/backend/src/controller/b.ts':
        "import { MAX } from '../runtime/limits';\nimport type { Limits } from '../runtime/host';\nexport const m: Limits = { n: MAX };\n",
      'js/backend/src/runtime/index.ts': "export type { Limits as L } from './host';\n",
      'js/backend/src/runtime/host.ts': 'export interface Limits { n: number }\n',
      'js/backend/src/runtime/limits.ts': 'export const MAX = 1;\n',
    }),
  );
  assert.deepEqual(r.errors, [
    `js/backend/src/controller/b.ts:2 imports runtime/host.ts (types): ${frontDoor}`,
    `js/backend/src/service/a.ts:1 imports runtime/host.ts (types): ${frontDoor}`,
  ]);
});

test('a copy of the project passes, and fails once a cycle and an upward import are planted in it', () => {
  const copy = () => {
    const root = tree({});
    for (const t of TREES) cpSync(join(repo, t), join(root, t), { recursive: true });
    return root;
  };
  const clean = run(copy());
  assert.equal(clean.code, 0, clean.errors.join('\n'));
  assert.equal(clean.excepted.length, EXCEPTIONS.length, 'every exception is printed');
  assert.ok(clean.trees['js/backend/src'].files > 50 && clean.trees['www/src'].files > 20, JSON.stringify(clean.trees));

  const root = copy();
  // runtime/ imports a service; wire/errors.ts imports what imports it (validate.ts); server/policy.ts (www) a composable
  appendFileSync(join(root, 'js/backend/src/runtime/gate.ts'), "\nimport { MemoryService } from '../service/memory';\nexport const planted = MemoryService;\n");
  appendFileSync(join(root, 'js/backend/src/wire/errors.ts'), "\nimport { has } from './validate';\nexport const planted = has;\n");
  appendFileSync(join(root, 'www/src/server/policy.ts'), "\nimport { catalogNow } from '../composables/useCatalog';\nexport const planted = catalogNow;\n");
  const r = run(root);
  assert.equal(r.code, 1);
  const lines = (t) => readFileSync(join(repo, t), 'utf8').split('\n').length + 1;
  assert.ok(
    r.errors.includes(`js/backend/src/runtime/gate.ts:${lines('js/backend/src/runtime/gate.ts')} imports service/memory.ts: ${RULES[1].why}`),
    r.errors.join('\n'),
  );
  assert.ok(r.errors.includes('js/backend/src: import cycle: wire/errors.ts → wire/validate.ts → wire/errors.ts'), r.errors.join('\n'));
  assert.ok(
    r.errors.some((e) => e.startsWith('www/src: import cycle: ') && e.includes('policy.ts') && e.includes('composables/useCatalog.ts')),
    r.errors.join('\n'),
  );
  assert.ok(
    r.errors.some((e) => e.startsWith(`www/src/server/policy.ts:${lines('www/src/server/policy.ts')} imports composables/useCatalog.ts: `)),
    r.errors.join('\n'),
  );
  assert.equal(r.errors.length, 4, r.errors.join('\n'));
});

test('a cycle of type-only imports is still a cycle; a rule with types allowed lets a type-only import through, not a value', () => {
  const r = bare(
    tree({
      'js/backend/src/runtime/a.ts': "import type { B } from './b';\nexport interface A { b: B }\n",
      'js/backend/src/runtime/b.ts': "import { type A } from './a';\nexport interface B { a?: A }\n",
      'js/backend/src/runtime/index.ts': "export type { A } from './a';\nexport { type B, run } from './b';\n",
      'js/backend/src/service/x.ts':
        "import type { A } from '../runtime';\nimport { type B, run } from '../runtime';\nexport type T = A | B;\nexport const r = run;\n",
    }),
  );
  assert.deepEqual(r.errors, [
    'js/backend/src: import cycle: runtime/a.ts → runtime/b.ts → runtime/a.ts',
    `js/backend/src/service/x.ts:2 imports runtime/index.ts: ${RULES[0].why}`,
  ]);
});

test('imports are read from code: not from comments or strings; dynamic import(), require() and export-from count', () => {
  const r = bare(
    tree({
      'js/backend/src/service/a.ts': [
        "// import { x } from '../agent/loop';",
        "/* import '../agent/loop'; */",
        'export const text = "import { y } from \'../agent/loop\'";',
        "export const later = () => import('../agent/loop');",
        "export const now = () => require('../runtime');",
        "export { z } from '../agent/prompt';",
        '',
      ].join('\n'),
      'js/backend/src/agent/loop.ts': 'export const x = 1;\n',
      'js/backend/src/agent/prompt.ts': 'export const z = 1;\n',
      'js/backend/src/runtime/index.ts': 'export const h = 1;\n',
    }),
  );
  assert.deepEqual(
    r.errors.map((e) => e.split(': ')[0]),
    [
      'js/backend/src/service/a.ts:4 imports agent/loop.ts',
      'js/backend/src/service/a.ts:5 imports runtime/index.ts',
      'js/backend/src/service/a.ts:6 imports agent/prompt.ts',
    ],
  );
});

test('the script blocks of .vue files are read, at their lines; a view is reached through the router alone', () => {
  const r = bare(
    tree({
      'www/src/components/Card.vue':
        '<template>\n  <p>import x from "../views/A.vue"</p>\n</template>\n<script setup lang="ts">\nimport A from \'../views/A.vue\';\n</script>\n',
      'www/src/views/A.vue': '<script setup lang="ts">\nimport Card from \'../components/Card.vue\';\n</script>\n<template><Card /></template>\n',
      'www/src/app/router.ts': "export const routes = [{ component: () => import('../views/A.vue') }];\n",
    }),
  );
  assert.deepEqual(r.errors, [
    'www/src: import cycle: components/Card.vue → views/A.vue → components/Card.vue',
    `www/src/components/Card.vue:5 imports views/A.vue: ${RULES.find((x) => x.tree === 'www/src' && x.from.includes?.('components/')).why}`,
    `www/src/components/Card.vue:5 imports views/A.vue: ${RULES.find((x) => x.tree === 'www/src' && x.notFrom).why}`,
  ]);
});

test('an entity may import typeorm alone among packages; an exception is printed, and a stale one fails', () => {
  const root = tree({
    'js/backend/src/entity/a.ts': "import { Entity } from 'typeorm';\nimport { Provide } from '@midwayjs/core';\nexport const e = [Entity, Provide];\n",
    'js/backend/src/service/b.ts': "import { h } from '../runtime';\nexport const x = h;\n",
    'js/backend/src/runtime/index.ts': 'export const h = 1;\n',
  });
  try {
    const exceptions = [
      { tree: 'js/backend/src', from: 'service/b.ts', to: 'runtime/index.ts', why: 'planted: allowed for now' },
      { tree: 'js/backend/src', from: 'service/gone.ts', to: 'runtime/index.ts', why: 'planted: matches nothing' },
    ];
    const r = check(root, { exceptions });
    assert.deepEqual(r.excepted, ['js/backend/src/service/b.ts:1 imports runtime/index.ts: planted: allowed for now']);
    assert.deepEqual(r.errors, [
      `js/backend/src/entity/a.ts:2 imports @midwayjs/core: ${RULES.find((x) => x.from.includes?.('entity/')).why}`,
      'js/backend/src: the exception service/gone.ts → runtime/index.ts matches no import that breaks a rule: remove it',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the pages may import the backend's wire types and nothing else of it; the backend nothing outside its tree", () => {
  const r = bare(
    tree({
      'js/backend/src/wire/api-types.ts': 'export const MAX = 1;\n',
      'js/backend/src/wire/errors.ts': 'export class AppError extends Error {}\n',
      'js/backend/src/service/a.ts': "import { b } from '../../../../www/src/base/types';\nexport const x = b;\n",
      'www/src/base/types.ts':
        "import { MAX } from '../../../js/backend/src/wire/api-types';\nimport { AppError } from '../../../js/backend/src/wire/errors';\nexport const b = [MAX, AppError];\n",
    }),
  );
  assert.deepEqual(r.errors, [
    `js/backend/src/service/a.ts:1 imports www/src/base/types.ts: ${RULES.find((x) => x.tree === 'js/backend/src' && x.outside).why}`,
    `www/src/base/types.ts:2 imports js/backend/src/wire/errors.ts: ${RULES.find((x) => x.tree === 'www/src' && x.outside).why}`,
  ]);
});

test('every exception of the project names a rule it is an exception to, and a reason', () => {
  for (const ex of EXCEPTIONS) {
    assert.ok(TREES.includes(ex.tree), ex.tree);
    assert.ok(ex.why.length > 20, `${ex.from}: a reason`);
  }
  const r = check(repo);
  assert.deepEqual(r.errors, []);
  assert.equal(r.excepted.length, EXCEPTIONS.length);
});

test('a loose file (not the entry) fails in either tree; a folder of the backend knows only the folders below it', () => {
  const r = bare(
    tree({
      'js/backend/src/configuration.ts': "import { a } from './helpers';\nexport const c = a;\n",
      'js/backend/src/helpers.ts': 'export const a = 1;\n',
      'js/backend/src/config/settings.ts': "import { q } from '../db/probe';\nexport const s = q;\n",
      'js/backend/src/db/probe.ts': 'export const q = 1;\n',
      'www/src/main.ts': "import { t } from './words';\nexport const m = t;\n",
      'www/src/words.ts': 'export const t = 1;\n',
    }),
  );
  assert.deepEqual(r.errors, [
    `js/backend/src/helpers.ts: ${LOOSE_WHY}`,
    `js/backend/src/config/settings.ts:1 imports db/probe.ts: ${RULES.find((x) => x.tree === 'js/backend/src' && x.from.includes?.('config/')).why}`,
    `www/src/words.ts: ${LOOSE_WHY}`,
  ]);
});
