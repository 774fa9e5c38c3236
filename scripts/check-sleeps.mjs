#!/usr/bin/env node
// No test asserts after a fixed sleep: a test waits for the condition it checks (polled with a deadline),
// for an event the code emits, or moves an injected clock (lib/clock.ts `ManualClock`); a "nothing
// happens" assertion is made after an event that shows the input was processed. This check reads the
// test files and fails, naming file and line, on
//   - a sleep statement (`await sleep(…)`, `await delay(…)`, `await new Promise(r => setTimeout(r, …))`)
//     whose next statement asserts (`assert…`, `expect(…)`);
//   - `page.waitForTimeout(…)` anywhere (a page test waits for what it shows: a locator, `settled`).
// A sleep that is a poll's pause (inside a loop, or on the line of a `while`/`if`) is not one: its loop
// tests the condition again. A sleep that is meant (a measuring window) says why on its line:
// `// sleep-lint: <why>`.
//
//   node scripts/check-sleeps.mjs [--root DIR] [--self-test]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The folders whose test files are read (missing ones are skipped: js/test may hold none). */
export const TEST_DIRS = ['js/backend/test', 'js/test', 'www/tests/e2e', 'scripts'];
const TEST_FILE = /\.(test\.)?(m?js|cjs|ts)$/;

const SLEEP = /^\s*await\s+(?:sleep|delay)\s*\(|^\s*await\s+new\s+Promise\s*\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\s*\(\s*\1\s*,/;
const ASSERTS = /^\s*(?:await\s+)?(?:assert\w*\s*[.(]|expect\w*\s*\()/;
/** A statement that only reads what is there (a declaration that awaits nothing): the sleep decides what it reads. */
const READS = /^\s*(?:const|let)\s[^=]*=(?!.*\bawait\b)/;
const WAIT_FOR_TIMEOUT = /\bwaitForTimeout\s*\(/;
const MEANT = /\/\/\s*sleep-lint:\s*\S/;

function files(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (TEST_FILE.test(name)) out.push(p);
  }
  return out;
}

/** Whether line `i` is in the body of a loop: the line that opens its block starts a `while`, `for` or `do`. */
function inLoop(lines, i) {
  let depth = 0;
  for (let k = i - 1; k >= 0; k--) {
    const l = lines[k].replace(/\/\/.*$/, '').replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '');
    depth += (l.match(/}/g) ?? []).length - (l.match(/{/g) ?? []).length;
    if (depth < 0) return /^\s*(?:}\s*)?(?:while|for|do)\b/.test(l);
  }
  return false;
}

/** The problems of one file's text: `{ line, text, why }`. */
export function problemsOf(text) {
  const lines = text.split('\n');
  const found = [];
  // whether a line is code worth reading (not blank, not a comment line)
  const code = (l) => l.trim() !== '' && !/^\s*(\/\/|\/?\*)/.test(l);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!code(l) || MEANT.test(l)) continue;
    if (WAIT_FOR_TIMEOUT.test(l)) {
      found.push({ line: i + 1, text: l.trim(), why: 'waitForTimeout: wait for what the page shows (a locator, settled)' });
      continue;
    }
    if (!SLEEP.test(l) || inLoop(lines, i)) continue;
    const next = (from) => {
      let j = from + 1;
      while (j < lines.length && !code(lines[j])) j++;
      return j;
    };
    // the next statement asserts, or reads what is there and the one after it asserts
    let j = next(i);
    for (let n = 0; n < 3 && j < lines.length && READS.test(lines[j]) && !ASSERTS.test(lines[j]); n++) j = next(j);
    if (j < lines.length && ASSERTS.test(lines[j])) {
      found.push({ line: i + 1, text: l.trim(), why: `a fixed sleep, then an assertion (line ${j + 1})` });
    }
  }
  return found;
}

/** Every problem under `root`, as `path:line: why: text` lines. */
export function check(root) {
  const out = [];
  for (const d of TEST_DIRS) {
    const dir = join(root, d);
    try {
      statSync(dir);
    } catch {
      continue;
    }
    for (const f of files(dir)) {
      if (resolve(f) === resolve(fileURLToPath(import.meta.url))) continue;
      for (const p of problemsOf(readFileSync(f, 'utf8'))) out.push(`${relative(root, f)}:${p.line}: ${p.why}: ${p.text}`);
    }
  }
  return out;
}

/** Plants each kind of problem (and each allowed form) in a temp tree: the check must name exactly the planted ones. */
function selfTest() {
  const root = mkdtempSync(join(tmpdir(), 'sleeps-'));
  try {
    const write = (rel, text) => {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    };
    write(
      'js/backend/test/bad.test.js',
      [
        "test('x', async () => {",
        '  await new Promise(r => setTimeout(r, 500));',
        '  assert.equal(1, 1);',
        '  await sleep(200);',
        '',
        '  // a comment between',
        '  assert.ok(true);',
        '});',
      ].join('\n'),
    );
    write(
      'js/test/read.test.mjs',
      "test('r', async () => {\n  await sleep(500);\n  const seen = events.slice();\n  const n = seen.length;\n  assertNothing(seen, n);\n  await sleep(500);\n  const r = await call();\n  assert.ok(r);\n});\n",
    );
    write('www/tests/e2e/bad.test.mjs', "test('y', async () => {\n  await page.waitForTimeout(300);\n  await check(page);\n});\n");
    write(
      'js/backend/test/good.test.js',
      [
        "test('z', async () => {",
        '  while (!done()) await new Promise(r => setTimeout(r, 50));',
        '  assert.ok(done());',
        '  for (;;) {',
        '    if (ok()) break;',
        '    await new Promise(resolve => setTimeout(resolve, 100));',
        '  }',
        '  assert.ok(ok());',
        '  while (later()) {',
        '    await sleep(300);',
        '    assert.equal(use(), 200);',
        '  }',
        '  await sleep(3000); // sleep-lint: measuring window',
        '  assert.ok(cpu() < 1);',
        '  await sleep(100);',
        '  await act();',
        '});',
      ].join('\n'),
    );
    const got = check(root).map((l) => l.split(':').slice(0, 2).join(':'));
    const want = ['js/backend/test/bad.test.js:2', 'js/backend/test/bad.test.js:4', 'js/test/read.test.mjs:2', 'www/tests/e2e/bad.test.mjs:2'];
    if (JSON.stringify(got.sort()) !== JSON.stringify(want)) {
      console.error(`check-sleeps --self-test: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      return 1;
    }
    console.log('check-sleeps --self-test: the planted sleeps are named, the polls and the marked window are not');
    return 0;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--self-test')) process.exit(selfTest());
  const at = args.indexOf('--root');
  const root = at >= 0 ? resolve(args[at + 1]) : resolve(here, '..');
  const problems = check(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`check-sleeps: ${problems.length} test(s) assert after a fixed sleep (wait for the condition, an event, or the clock)`);
    process.exit(1);
  }
  console.log('check-sleeps: no test asserts after a fixed sleep');
}
