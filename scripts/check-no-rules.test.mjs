// The check of scripts/check-no-rules.mjs, on trees it is given in temp dirs: a planted literal fails
// it, naming file and line; the marker allows a line only with a reason; a stale marker fails. The
// planted values are read from the package, like the check's own vocabulary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, 'check-no-rules.mjs');
const info = createRequire(import.meta.url)(resolve(here, '..', 'pkg', 'node', 'netaclaw_tool_policy.js')).catalogInfo();
const { vocabulary: voc } = info;
const reason = voc.reason[0];
const route = voc.route.find((r) => /-/.test(r));
const plainRoute = voc.route.find((r) => !/[-_]/.test(r));
const [cap1, cap2] = voc.capability;
const [human1, human2] = info.humanFields;
const reserved = info.toolsets.filter((t) => t.reserved).map((t) => t.name);
/** A tree with the given files (path → text). */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'check-no-rules-'));
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

test('a clean tree passes', () => {
  const r = run(
    tree({
      'www/src/a.ts':
        "import { catalogInfo } from '@netaclaw/tool-policy';\nexport const sets = catalogInfo().toolsets.map((t) => t.name);\nconst url = '/admin/netaclaw/tool/page'; // a comment may say " +
        reason +
        '\n',
      'js/backend/src/b.ts':
        "export const mode = process.env.X === 'auto' ? 1 : 2;\nconst k = 'disabled';\nif (k !== 'disabled') throw new Error('only tools.disabled');\n",
      'www/src/c.vue': `<template>\n  <!-- ${reason} -->\n  <p>${reason} in page text</p>\n  <el-input type="text" />\n</template>\n<script setup lang="ts">\n// ${route}\n</script>\n`,
    }),
  );
  assert.equal(r.code, 0, r.errors.join('\n'));
  assert.deepEqual(r.errors, []);
  assert.equal(r.files, 3);
});

test('a planted reason code fails, naming the file and the line', () => {
  const r = run(tree({ 'js/backend/src/service/x.ts': `const a = 1;\nexport const why = '${reason}';\n` }));
  assert.equal(r.code, 1);
  assert.deepEqual(r.errors, [`js/backend/src/service/x.ts:2: names the reason value "${reason}"`]);
});

test('a route value in a template literal, a Vue binding and a static attribute fails', () => {
  const r = run(
    tree({
      'www/src/t.ts': `export const s = \`${route}\`;\n`,
      'www/src/v.vue': `<template>\n  <el-tag :type="row.x === '${route}' ? 'success' : 'info'" />\n  <el-option value="${route}" />\n</template>\n`,
    }),
  );
  assert.equal(r.code, 1);
  assert.deepEqual(r.errors, [
    `www/src/t.ts:1: names the ${groupsOf(route)} value "${route}"`,
    `www/src/v.vue:2: names the ${groupsOf(route)} value "${route}"`,
    `www/src/v.vue:3: names the ${groupsOf(route)} value "${route}"`,
  ]);
});

test('plain words fail when listed or compared with a thing of their vocabulary', () => {
  const r = run(
    tree({
      'www/src/list.ts': `export type C = '${cap1}' | '${cap2}';\nexport const F = ['${human1}', '${human2}'];\n`,
      'www/src/sets.ts': `export const s = new Set(['${reserved[0]}', '${reserved[1]}']);\n`,
      'www/src/cmp.ts': `export const blocked = (r: { route: string }) => r.route === '${plainRoute}';\n`,
      'js/backend/src/entity/e.ts': `const comment = 'capability ${cap1}|${cap2}';\n`,
      'www/src/opts.vue': `<template>\n  <el-option label="${cap1}" value="${cap1}" />\n  <el-option label="${cap2}" value="${cap2}" />\n</template>\n`,
    }),
  );
  assert.equal(r.code, 1);
  const where = r.errors.map((e) => e.split(': ')[0]);
  assert.deepEqual(where, [
    'www/src/cmp.ts:1',
    'www/src/list.ts:1',
    'www/src/list.ts:2',
    'www/src/opts.vue:2',
    'www/src/sets.ts:1',
    'js/backend/src/entity/e.ts:1',
  ]);
});

test('a marker with a reason allows its line; without a reason, or with nothing to allow, it fails', () => {
  const ok = run(tree({ 'js/backend/src/r.ts': `export const code = '${reason}'; // policy-vocabulary: the runtime answers this code (RUNTIME §2)\n` }));
  assert.equal(ok.code, 0, ok.errors.join('\n'));
  assert.equal(ok.allowed, 1);
  const bare = run(tree({ 'js/backend/src/r.ts': `export const code = '${reason}'; // policy-vocabulary:\n` }));
  assert.equal(bare.code, 1);
  assert.match(bare.errors[0], /gives no reason/);
  const stale = run(tree({ 'js/backend/src/r.ts': `export const n = 1; // policy-vocabulary: nothing here\n` }));
  assert.equal(stale.code, 1);
  assert.match(stale.errors[0], /^js\/backend\/src\/r\.ts:1: a "policy-vocabulary:" marker where nothing/);
});

test('the repository itself passes', () => {
  const r = spawnSync(process.execPath, [script, '--json'], { encoding: 'utf8' });
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.errors, []);
  assert.equal(r.status, 0);
});

function groupsOf(value) {
  return Object.entries(voc)
    .filter(([, values]) => values.includes(value))
    .map(([g]) => g)
    .join('/');
}
