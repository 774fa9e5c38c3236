// Login (issue item 6): the token is exchanged for an HttpOnly, SameSite=Strict session cookie; the
// pages keep no token (no localStorage, no URL: launch() fails a file whose browser asked for an
// address holding it); the header's tag says what the backend says; a wrong token gets one message,
// in the page's language, under the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, TOKEN, forFile, launch, open } from './helpers.mjs';

const browser = forFile(launch);

const ZH = {
  tokenRequired: '请输入管理令牌。',
  wrongToken: '管理令牌不正确：请检查后重新输入。',
};

test('without a login: 未登录, one prompt, no data and no stacked errors', async () => {
  const page = await open(browser.context, '/agent/tools', { login: false });
  const tag = page.getByTestId('login-state');
  await tag.waitFor();
  assert.equal(await tag.getAttribute('data-state'), 'out');
  await page.getByTestId('login-needed').waitFor();
  // the login box opens by itself
  await page.getByTestId('login-dialog').getByTestId('token-input').waitFor();
  assert.equal(await page.locator('tr.tool-row').count(), 0);
  assert.equal(await page.locator('.el-alert--error').count(), 0, 'no error stack');
});

test('a wrong token: a field message in the page language, still 未登录; the right one: an HttpOnly SameSite=Strict cookie, 已登录', async () => {
  const page = await open(browser.context, '/agent/tools', { login: false });
  const dialog = page.getByTestId('login-dialog');
  await dialog.getByTestId('token-input').waitFor();
  await dialog.getByTestId('login-submit').click();
  await dialog.locator('.el-form-item__error', { hasText: ZH.tokenRequired }).waitFor();

  await dialog.getByTestId('token-input').fill('wrong-token');
  await dialog.getByTestId('login-submit').click();
  await dialog.locator('.el-form-item__error', { hasText: ZH.wrongToken }).waitFor();
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'out');
  assert.deepEqual(await browser.context.cookies(), []);

  await dialog.getByTestId('token-input').fill(TOKEN);
  await dialog.getByTestId('login-submit').click();
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').waitFor();
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'in');
  const cookies = await browser.context.cookies();
  assert.equal(cookies.length, 1);
  assert.equal(cookies[0].name, 'netaclaw_session');
  assert.equal(cookies[0].httpOnly, true);
  assert.equal(cookies[0].sameSite, 'Strict');
  assert.ok(!cookies[0].value.includes(TOKEN));
  // the page keeps no token: not in storage, not readable from the cookie jar
  const kept = await page.evaluate(() => ({
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
    cookie: document.cookie,
  }));
  assert.ok(!kept.local.includes(TOKEN) && !kept.session.includes(TOKEN), JSON.stringify(kept));
  assert.equal(kept.cookie, '');

  // a reload stays logged in; logging out ends it (the backend answers 401 again)
  await page.reload();
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').waitFor();
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'in');
  await page.getByTestId('open-login').click();
  await page.getByTestId('login-needed').waitFor();
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'out');
  const after = await page.evaluate(async () => (await fetch('/admin/netaclaw/tool/all')).status);
  assert.equal(after, 401);
  assert.deepEqual(browser.errors, []);
});

test('no request of the pages carries the token (a chat over the WebSocket included)', async () => {
  // every file's browser is checked when it closes (helpers.mjs launch()); this one looks at this file's
  const page = await open(browser.context, '/agent/tools');
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').waitFor();
  assert.ok(browser.urls.some((u) => u.startsWith(BASE)));
  assert.deepEqual(
    browser.urls.filter((u) => u.includes(TOKEN) || /[?&]token=/.test(u)),
    [],
  );
});
