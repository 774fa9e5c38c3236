// Shared helpers of the e2e tests: the Chromium launch, the backend client, screenshots.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const BASE = process.env.E2E_BASE_URL;
export const TOKEN = process.env.E2E_ADMIN_TOKEN;
if (!BASE || !TOKEN) throw new Error('run the e2e tests through `npm run test:e2e` (E2E_BASE_URL / E2E_ADMIN_TOKEN unset)');

const here = dirname(fileURLToPath(import.meta.url));
// The README's screenshots are rewritten only on request (UPDATE_SCREENSHOTS=1); otherwise they go to a temp dir.
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? resolve(here, '..', '..', '..', 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'netaclaw-screenshots-'));

const CHROMIUM = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A fresh browser (own temp --user-data-dir); `close()` removes the profile. */
export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'netaclaw-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1920, height: 1080 },
    locale: 'zh-CN',
  });
  const errors = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  // every address the browser asked for (requests and WebSockets): the token must be in none
  const urls = [];
  const watch = (page) => page.on('websocket', (ws) => urls.push(ws.url()));
  context.pages().forEach(watch);
  context.on('page', watch);
  context.on('request', (r) => urls.push(r.url()));
  return {
    context,
    errors,
    urls,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
      const leaked = urls.filter((u) => u.includes(TOKEN) || /[?&]token=/.test(u));
      if (leaked.length) throw new Error(`the admin token was in request addresses: ${leaked.join(' ')}`);
    },
  };
}

/**
 * Something a whole test file shares: `make()` (a browser, a channel, a workspace) runs before the file's
 * first test and its `close()` or `remove()` after the last; the returned object takes on what `make()`
 * gave once it ran. The top-level hooks of a file run side by side (node:test does not wait for one
 * before it starts the next), so whatever needs the thing made belongs in its `make()` or in a test.
 */
export function forFile(make) {
  const it = {};
  before(async () => Object.assign(it, await make()));
  after(async () => {
    const release = it.close ?? it.remove;
    if (release) await release();
  });
  return it;
}

/**
 * Logs the browser in as the pages do: the token goes once, in the body of POST /auth/login; the answer's
 * HttpOnly session cookie is kept by the browser context and its request key put where the pages keep it
 * (this origin's localStorage, src/server/api.ts), before any page of the context loads.
 */
export async function login(context, token = TOKEN) {
  const r = await context.request.post(`${BASE}/auth/login`, { data: { token } });
  if (!r.ok()) throw new Error(`login refused: ${r.status()} ${await r.text()}`);
  const { requestKey } = (await r.json()).data;
  await context.addInitScript(
    ([origin, key]) => {
      if (window.location.origin !== origin) return;
      if (window.localStorage.getItem('netaclaw.requestKey') === null) window.localStorage.setItem('netaclaw.requestKey', key);
    },
    [new URL(BASE).origin, requestKey],
  );
}

const loggedIn = new WeakSet();

/** Open a page of the app at `hash` (e.g. '/tools'), logged in (the session cookie; `login: false`: as it is). */
export async function open(context, hash, { lang, login: doLogin = true } = {}) {
  if (doLogin && !loggedIn.has(context)) {
    await login(context);
    loggedIn.add(context);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const q = lang ? `?${new URLSearchParams({ lang })}` : '';
  await page.goto('about:blank'); // a full load each time, not a same-document hash change
  await page.goto(`${BASE}/${q}#${hash}`);
  return page;
}

export async function api(method, path, body) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, body: json };
}

export async function apiData(method, path, body) {
  const r = await api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** The catalog the backend works with (the pages take theirs from the same place). */
export async function serverCatalog() {
  return apiData('GET', '/admin/netaclaw/tool/catalog');
}

/** Waits (5 s at most) until the backend's row of tool `name` has `field` = `value`; fails with what it has. */
export async function waitToolField(name, field, value) {
  const deadline = Date.now() + 5000;
  let last;
  while (Date.now() < deadline) {
    last = (await apiData('GET', `/admin/netaclaw/tool/info?name=${name}`))[field];
    if (last === value) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`tool ${name}: ${field} is ${JSON.stringify(last)}, expected ${JSON.stringify(value)}`);
}

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  // let the toasts (ElMessage) fade away first, so that they do not cover the page
  await page
    .locator('.el-message')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => {});
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Waits (10 s at most) until the page has settled: no animation or transition running (a drawer
 * opening, a dialog fading) and its layout the same over two frames (the tables lay themselves out
 * again when their size changes: a viewport change shows over a frame or two).
 */
export async function settled(page, timeout = 10_000) {
  await page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const shape = () =>
          JSON.stringify([
            document.documentElement.scrollWidth,
            document.documentElement.scrollHeight,
            ...[...document.querySelectorAll('.el-table, .el-table th, .el-transfer-panel, .el-drawer, .el-overlay, .el-card, .el-dialog')].map((el) => {
              const r = el.getBoundingClientRect();
              return [r.x, r.y, r.width, r.height, el.scrollWidth];
            }),
          ]);
        const before = shape();
        requestAnimationFrame(() =>
          requestAnimationFrame(() => resolve(shape() === before && document.getAnimations().every((a) => a.playState !== 'running'))),
        );
      }),
    undefined,
    { timeout },
  );
}

/** Click an option of the select whose dropdown has the popper class `popper` (set on each el-select). */
export async function pickOption(page, popper, text) {
  await page
    .locator(`.${popper} .el-select-dropdown__item`, { hasText: new RegExp(`^\\s*${text}\\s*$`) })
    .first()
    .click();
}

/**
 * The count of `locator` once it reaches `expected` (polled for up to `timeout` ms while the page
 * re-renders), or the last count seen, for the caller's assertion to report.
 */
export async function countSettles(locator, expected, timeout = 10_000) {
  const end = Date.now() + timeout;
  let n = await locator.count();
  while (n !== expected && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    n = await locator.count();
  }
  return n;
}

export async function switchLocale(page, lang) {
  await page.getByTestId(lang === 'en' ? 'locale-en' : 'locale-zh').click();
}

/** JSON with object keys sorted, for order-insensitive equality. */
export function canonical(v) {
  return JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val,
  );
}

let seq = 0;
export function uniqueName(prefix) {
  seq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}

/**
 * A model channel pointing at the scripted model of the e2e run (run.mjs), added through the channel
 * API; `remove()` deletes it again (the backend has no channel outside the tests that chat).
 */
export async function scriptedChannel() {
  const channel = await apiData('POST', '/admin/netaclaw/channel/add', {
    name: uniqueName('scripted'),
    baseUrl: process.env.E2E_MODEL_BASE_URL,
    model: process.env.E2E_MODEL,
    capability: 'text',
    isDefault: true,
  });
  return {
    channel,
    remove: () => apiData('POST', '/admin/netaclaw/channel/delete', { id: channel.id }),
  };
}

/**
 * A temp folder holding notes.txt (the file the scripted model's scenarios read), given to the user the
 * backend's sandboxes run as (as an operator gives a workspace); `remove()` deletes it.
 */
export function notesWorkspace(notes) {
  const path = mkdtempSync(join(tmpdir(), 'netaclaw-e2e-work-'));
  writeFileSync(join(path, 'notes.txt'), `${notes}\n`);
  giveToSandbox(path);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** When the tests run as root, the backend's sandboxes run as `netaclaw-sandbox` (created by the backend). */
function giveToSandbox(dir) {
  if (process.getuid() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', 'netaclaw-sandbox'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'netaclaw-sandbox'], { encoding: 'utf8' }).trim());
  for (const name of ['', ...readdirSync(dir)]) chownSync(join(dir, name), uid, gid);
}

/** Types `text` into the chat's input and sends it. */
export async function send(page, text) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
}

/** The visible error texts of `scope` (field messages, alerts, toasts). */
export async function errorTexts(scope) {
  return scope
    .locator('.el-form-item__error, .el-alert--error .el-alert__title, .el-alert--error .el-alert__description, .el-message--error .el-message__content')
    .evaluateAll((els) =>
      els
        .filter((e) => e.getBoundingClientRect().width > 0)
        .map((e) => e.textContent.trim())
        .filter((t) => t !== ''),
    );
}

/**
 * Fails unless every visible error text of `scope` is a sentence of the page's language: no code
 * (`snake_case`), no JavaScript error text, and in zh-CN no English sentence. Returns the texts.
 */
export async function assertLocalizedErrors(scope, lang, what) {
  const texts = await errorTexts(scope);
  assert.ok(texts.length > 0, `${what}: an error is shown`);
  for (const t of texts) {
    assert.doesNotMatch(t, /\b[a-z]+(?:_[a-z0-9]+)+\b/, `${what}: a code on screen: ${t}`);
    assert.doesNotMatch(
      t,
      /SyntaxError|Unexpected (token|end)|JSON at position|is not valid JSON:|\bundefined\b|\bnull\b/,
      `${what}: a JavaScript error on screen: ${t}`,
    );
    if (lang === 'zh-CN') {
      assert.match(t, /[\u4e00-\u9fff]/, `${what}: not Chinese: ${t}`);
      assert.doesNotMatch(t, /[A-Za-z]+(?:[ ,:;'’-]+[A-Za-z]+){3,}/, `${what}: an English sentence on a Chinese page: ${t}`);
    }
  }
  return texts;
}

/**
 * What sticks out: elements whose box passes their card's edge (outside any scrolling or clipping box
 * inside the card), and texts cut by an ellipsis or a clipping box (their content wider than they are).
 * Runs in the page.
 */
function problems() {
  const out = [];
  const describe = (el) =>
    `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
  for (const card of document.querySelectorAll('.el-card')) {
    const c = card.getBoundingClientRect();
    if (c.width === 0) continue;
    for (const el of card.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      let clipped = false;
      for (let p = el.parentElement; p && p !== card; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') {
          clipped = true;
          break;
        }
      }
      if (!clipped && (r.right > c.right + 1 || r.left < c.left - 1))
        out.push(`outside its card: ${describe(el)} [${Math.round(r.left)}, ${Math.round(r.right)}] vs [${Math.round(c.left)}, ${Math.round(c.right)}]`);
    }
    for (const el of card.querySelectorAll(
      'th .cell, .el-transfer-panel__header-title, .el-transfer-panel__item .el-checkbox__label, .el-tabs__item, .el-form-item__label',
    )) {
      if (el.getBoundingClientRect().width > 0 && el.scrollWidth > el.clientWidth + 1) out.push(`cut: ${describe(el)} (${el.scrollWidth} > ${el.clientWidth})`);
    }
  }
  return out;
}

/** Fails when an element of a card of the page sticks out of it or a title is cut (`problems`). */
export async function checkPage(page, what) {
  const found = await page.evaluate(problems);
  assert.deepEqual(found, [], what);
}
