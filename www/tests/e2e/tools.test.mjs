// Tool 管理: a core tool cannot be disabled (locked switch, refused attempts, in the browser and by
// the backend); human fields are edited through the drawer; mirror fields are read-only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { api, apiData, launch, open, screenshot, switchLocale } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const row = (page, name) => page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-${name}`);

test('the core tool todo cannot be disabled: locked switch, refused in the browser and by the backend', async () => {
  const page = await open(browser.context, '/tools');
  await row(page, 'todo').waitFor();
  const sw = row(page, 'todo').getByTestId('status-switch');
  assert.match(await sw.getAttribute('class'), /is-disabled/);
  assert.equal(await sw.locator('input').isDisabled(), true);
  // a non-core tool's switch is not locked
  assert.doesNotMatch(await row(page, 'bash').getByTestId('status-switch').getAttribute('class'), /is-disabled/);

  // a click on the locked switch (Playwright waits until nothing covers it): checked in the
  // browser, refused, nothing sent
  await sw.click();
  const errs = page.getByTestId('update-errors');
  await errs.waitFor();
  assert.equal(await errs.getAttribute('data-source'), 'browser');
  assert.equal(await errs.locator('li[data-field=status]').getAttribute('data-code'), 'core_tool_cannot_be_disabled');
  assert.equal((await errs.locator('li[data-field=status] .reason-tag').innerText()).trim(), label('reasons', 'core_tool_cannot_be_disabled', 'zh-CN'));
  assert.equal((await apiData('GET', '/admin/netaclaw/tool/info?name=todo')).status, 1);

  // a forced attempt that skips the browser check: the backend's 400 update_refused is shown
  const sent = await page.evaluate(() => window.__netaclawToolAdmin.submit('todo', { status: 0 }, { skipBrowserCheck: true }));
  assert.equal(sent, false);
  await page.locator('[data-testid=update-errors][data-source=backend]').waitFor();
  const backendErr = page.locator('[data-testid=update-errors][data-source=backend] li[data-field=status]');
  assert.equal(await backendErr.getAttribute('data-code'), 'core_tool_cannot_be_disabled');
  await switchLocale(page, 'en');
  assert.equal((await backendErr.locator('.reason-tag').innerText()).trim(), label('reasons', 'core_tool_cannot_be_disabled', 'en'));
  await switchLocale(page, 'zh-CN');
  assert.equal((await apiData('GET', '/admin/netaclaw/tool/info?name=todo')).status, 1);
  // and the backend says so itself
  const direct = await api('POST', '/admin/netaclaw/tool/update', { name: 'todo', status: 0 });
  assert.equal(direct.status, 400);
  assert.equal(direct.body.error.code, 'update_refused');
  assert.deepEqual(direct.body.error.errors, [{ field: 'status', code: 'core_tool_cannot_be_disabled' }]);

  // the same guard in the drawer: its status switch is locked too
  await row(page, 'todo').getByTestId('edit-tool').click();
  const drawer = page.getByTestId('tool-drawer');
  await drawer.getByTestId('mirror-fields').waitFor();
  assert.match(await drawer.getByTestId('drawer-status').getAttribute('class'), /is-disabled/);
  // screenshot once the drawer has slid in completely
  await page.waitForFunction(() => {
    const d = document.querySelector('.el-drawer');
    return d && Math.abs(d.getBoundingClientRect().right - window.innerWidth) < 1 && !d.closest('.el-drawer-fade-enter-active');
  });
  await screenshot(page, 'tools-drawer');
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });
  assert.deepEqual(browser.errors, []);
});

test('a prompt hint where it is not supported is refused by validateToolUpdate', async () => {
  const page = await open(browser.context, '/tools');
  await row(page, 'memory_save').waitFor();
  const sent = await page.evaluate(() => window.__netaclawToolAdmin.submit('memory_save', { promptHint: 'x', toolset: 'base' }));
  assert.equal(sent, false);
  const errs = page.locator('[data-testid=update-errors][data-source=browser]');
  await errs.waitFor();
  const codes = await errs.locator('li').evaluateAll((lis) => lis.map((li) => `${li.dataset.field}:${li.dataset.code}`));
  assert.deepEqual(codes, ['toolset:field_is_readonly', 'promptHint:prompt_hint_not_supported']);
  // the drawer does not even offer the field for it
  await row(page, 'memory_save').getByTestId('edit-tool').click();
  assert.equal(await page.getByTestId('drawer-prompt-hint').isDisabled(), true);
  await page.keyboard.press('Escape');
});

test('editing human fields in the drawer: label, prompt hint, strategy; status toggle of a normal tool', async () => {
  const before = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
  const page = await open(browser.context, '/tools');
  await row(page, 'patch').waitFor();
  try {
    await row(page, 'patch').getByTestId('edit-tool').click();
    const drawer = page.getByTestId('tool-drawer');
    await drawer.getByTestId('drawer-label').fill('补丁');
    await drawer.getByTestId('drawer-prompt-hint').fill('Use small patches.');
    await drawer.getByTestId('drawer-strategy').click();
    await page.locator('.el-select-dropdown:visible .el-select-dropdown__item', { hasText: label('strategies', 'force-disabled', 'zh-CN') }).click();
    await drawer.getByTestId('drawer-save').click();
    await drawer.waitFor({ state: 'hidden' });
    const after = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
    assert.equal(after.label, '补丁');
    assert.equal(after.promptHint, 'Use small patches.');
    assert.equal(after.workerRoutingStrategy, 'force-disabled');
    assert.equal(after.toolset, before.toolset);
    await row(page, 'patch').locator('[data-hint=set]').waitFor();
    assert.match(await row(page, 'patch').innerText(), new RegExp(label('strategies', 'force-disabled', 'zh-CN')));

    // a normal tool's switch works: bash off, then on again
    await row(page, 'bash').getByTestId('status-switch').click();
    await expectStatus('bash', 0);
    await row(page, 'bash').getByTestId('status-switch').click();
    await expectStatus('bash', 1);

    // sync keeps the human fields
    await page.getByTestId('tool-sync').click();
    await page.locator('.el-message--success').first().waitFor();
    const synced = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
    assert.equal(synced.label, '补丁');
    assert.equal(synced.promptHint, 'Use small patches.');
    await screenshot(page, 'tools');
    assert.deepEqual(browser.errors, []);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', {
      id: before.id,
      label: before.label,
      promptHint: before.promptHint,
      workerRoutingStrategy: before.workerRoutingStrategy,
      status: 1,
    });
    await apiData('POST', '/admin/netaclaw/tool/update', { name: 'bash', status: 1 });
  }
});

async function expectStatus(name, status) {
  const deadline = Date.now() + 5000;
  let last;
  while (Date.now() < deadline) {
    last = (await apiData('GET', `/admin/netaclaw/tool/info?name=${name}`)).status;
    if (last === status) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(last, status, `${name}.status`);
}
