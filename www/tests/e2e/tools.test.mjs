// Tool 管理: a core tool cannot be disabled (locked switch, refused attempts, in the browser and by
// the backend); human fields are edited through the drawer; mirror fields are read-only; the 可关闭
// column and the filters. What is expected is read from the package (catalogInfo, toolRowView, label).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogInfo, getToolNamesByToolset, label, toolRowView } from '@netaclaw/tool-policy';
import {
  api,
  apiData,
  assertLocalizedErrors,
  countSettles,
  forFile,
  launch,
  open,
  pickOption,
  screenshot,
  serverCatalog,
  switchLocale,
  waitToolField,
} from './helpers.mjs';

const browser = forFile(launch);
let catalog;
before(async () => {
  catalog = await serverCatalog();
});

const row = (page, name) => page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-${name}`);
const rows = (page) => page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row');
const shownNames = async (page) =>
  await rows(page).evaluateAll((trs) => trs.map((tr) => [...tr.classList].find((c) => c.startsWith('tool-row-')).slice('tool-row-'.length)));

test('the menu entry is /agent/tools; the old route leads there', async () => {
  const page = await open(browser.context, '/tools');
  await page.getByTestId('tools-page').waitFor();
  assert.match(page.url(), /#\/agent\/tools$/);
  await page.getByTestId('menu-agents').click();
  await page.getByTestId('agents-page').waitFor();
  assert.match(page.url(), /#\/agent\/list$/);
  await page.getByTestId('menu-tools').click();
  await row(page, 'bash').waitFor();
  assert.match(page.url(), /#\/agent\/tools$/);
  assert.equal(await page.locator('.el-menu-item.is-active').getAttribute('data-testid'), 'menu-tools');
});

test('the core tool todo cannot be disabled: locked switch, refused in the browser and by the backend', async () => {
  const todo = await apiData('GET', '/admin/netaclaw/tool/info?name=todo');
  assert.equal(toolRowView({ row: todo, catalog }).protected, true);
  const page = await open(browser.context, '/agent/tools');
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
  // the field by its title, the reason by its label: no field name, code or function name on screen
  await assertLocalizedErrors(page.getByTestId('tools-page'), 'zh-CN', 'a locked switch');
  await switchLocale(page, 'en');
  assert.equal((await errs.locator('li[data-field=status] .reason-tag').innerText()).trim(), label('reasons', 'core_tool_cannot_be_disabled', 'en'));
  await switchLocale(page, 'zh-CN');
  assert.equal((await apiData('GET', '/admin/netaclaw/tool/info?name=todo')).status, 1);
  // the backend refuses it too, whoever asks
  const direct = await api('POST', '/admin/netaclaw/tool/update', { name: 'todo', status: 0 });
  assert.equal(direct.status, 400);
  assert.equal(direct.body.error.code, 'update_refused');
  assert.deepEqual(direct.body.error.errors, [{ field: 'status', code: 'core_tool_cannot_be_disabled' }]);

  // the same guard in the drawer: its status switch is locked too, and a click on it is refused
  await row(page, 'todo').getByTestId('edit-tool').click();
  const drawer = page.getByTestId('tool-drawer');
  await drawer.getByTestId('mirror-fields').waitFor();
  assert.match(await drawer.getByTestId('drawer-field-status').getAttribute('class'), /is-disabled/);
  // mirror fields are the package's list, read-only
  const mirror = await drawer
    .getByTestId('mirror-fields')
    .locator('[data-field]')
    .evaluateAll((els) => els.map((e) => e.dataset.field));
  assert.deepEqual(mirror, catalogInfo(catalog).mirrorFields);
  // screenshot once the drawer has slid in completely
  await page.waitForFunction(() => {
    const d = document.querySelector('.el-drawer');
    return d && Math.abs(d.getBoundingClientRect().right - window.innerWidth) < 1 && !d.closest('.el-drawer-fade-enter-active');
  });
  await screenshot(page, 'tools-drawer');
  await drawer.locator('.status-cell[data-locked=true]').click();
  await drawer.locator('[data-testid=drawer-update-errors] li[data-field=status][data-code=core_tool_cannot_be_disabled]').waitFor();
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });
  assert.deepEqual(browser.errors, []);
});

test('a prompt hint where it is not supported: the table says so and the drawer does not offer it', async () => {
  const memory = await apiData('GET', '/admin/netaclaw/tool/info?name=memory_save');
  assert.equal(toolRowView({ row: memory, catalog }).promptHint, 'unsupported');
  const page = await open(browser.context, '/agent/tools');
  await row(page, 'memory_save').locator('[data-hint=unsupported]').waitFor();
  await row(page, 'bash').locator('[data-hint=default]').waitFor();
  await row(page, 'memory_save').getByTestId('edit-tool').click();
  assert.equal(await page.getByTestId('drawer-field-promptHint').isDisabled(), true);
  await page.keyboard.press('Escape');
  // the backend refuses it too
  const direct = await api('POST', '/admin/netaclaw/tool/update', { name: 'memory_save', promptHint: 'x', toolset: 'base' });
  assert.equal(direct.status, 400);
  assert.deepEqual(direct.body.error.errors, [
    { field: 'toolset', code: 'field_is_readonly' },
    { field: 'promptHint', code: 'prompt_hint_not_supported' },
  ]);
});

test('editing human fields in the drawer: label, prompt hint, strategy, extra; status toggle of a normal tool', async () => {
  const before = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
  const page = await open(browser.context, '/agent/tools');
  await row(page, 'patch').waitFor();
  try {
    await row(page, 'patch').getByTestId('edit-tool').click();
    const drawer = page.getByTestId('tool-drawer');
    // the drawer edits exactly the package's human fields
    const fields = await drawer.locator('[data-testid^=drawer-field-]').evaluateAll((els) => els.map((e) => e.dataset.testid.slice('drawer-field-'.length)));
    assert.deepEqual(fields, catalogInfo(catalog).humanFields);
    await drawer.getByTestId('drawer-field-label').fill('补丁');
    await drawer.getByTestId('drawer-field-promptHint').fill('Use small patches.');
    await drawer.getByTestId('drawer-field-extra').fill('{"owner": "ops"');
    await drawer.getByTestId('drawer-field-workerRoutingStrategy').click();
    await pickOption(page, 'popper-drawer-strategy', label('strategies', 'force-disabled', 'zh-CN'));
    // malformed JSON in extra: said, nothing sent
    await drawer.getByTestId('drawer-save').click();
    await drawer.getByTestId('drawer-json-error').waitFor();
    // said in the page's words, under the field too (not the browser's JSON parser's message)
    await drawer.locator('.el-form-item.is-error').getByTestId('drawer-field-extra').waitFor();
    await assertLocalizedErrors(drawer, 'zh-CN', 'bad JSON in extra');
    assert.equal((await apiData('GET', '/admin/netaclaw/tool/info?name=patch')).version, before.version);
    await drawer.getByTestId('drawer-field-extra').fill('{"owner": "ops"}');
    await drawer.getByTestId('drawer-save').click();
    await drawer.waitFor({ state: 'hidden' });
    const after = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
    assert.equal(after.label, '补丁');
    assert.equal(after.promptHint, 'Use small patches.');
    assert.equal(after.workerRoutingStrategy, 'force-disabled');
    assert.deepEqual(after.extra, { owner: 'ops' });
    assert.equal(after.toolset, before.toolset);
    await row(page, 'patch').locator('[data-hint=overridden]').waitFor();
    assert.match(await row(page, 'patch').innerText(), new RegExp(label('strategies', 'force-disabled', 'zh-CN')));

    // a normal tool's switch works: bash off (asked first: it goes for every agent; cancelled, nothing
    // changes), then on again (not asked)
    await row(page, 'bash').getByTestId('status-switch').click();
    const ask = page.locator('.el-message-box');
    await ask.waitFor();
    assert.match(await ask.innerText(), /停用后，所有 Agent 都不再获得工具 bash/);
    await ask.getByRole('button', { name: '取消' }).click();
    await ask.waitFor({ state: 'hidden' });
    assert.equal((await apiData('GET', '/admin/netaclaw/tool/info?name=bash')).status, 1, 'cancelled: still on');
    await row(page, 'bash').getByTestId('status-switch').click();
    await page.locator('.confirm-disable-tool').click();
    await waitToolField('bash', 'status', 0);
    await row(page, 'bash').getByTestId('status-switch').click();
    await waitToolField('bash', 'status', 1);

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
      extra: before.extra,
      status: 1,
    });
    await apiData('POST', '/admin/netaclaw/tool/update', { name: 'bash', status: 1 });
  }
});

test('the 可关闭 flag shows canDisable of every row', async () => {
  const page = await open(browser.context, '/agent/tools');
  await row(page, 'todo').waitFor();
  // the yes/no flags share a column: 核心 / 可关闭
  const header = page.locator('[data-testid=tool-table] .el-table__header-wrapper th.col-flags');
  assert.match((await header.innerText()).trim(), /可关闭/);
  const all = await apiData('GET', '/admin/netaclaw/tool/all');
  for (const name of ['todo', 'clarify', 'bash', 'memory_save']) {
    const expected = all.find((r) => r.name === name).canDisable;
    assert.equal(await row(page, name).locator('td.col-flags .flag-canDisable').getAttribute('data-value'), String(expected), name);
  }
  assert.equal(all.find((r) => r.name === 'todo').canDisable, 0);
  assert.equal(all.find((r) => r.name === 'bash').canDisable, 1);
});

test('the filters: name, toolset, status, capability, and reset', async () => {
  const all = await apiData('GET', '/admin/netaclaw/tool/all');
  const page = await open(browser.context, '/agent/tools');
  await row(page, 'bash').waitFor();
  const settle = async (expected) => {
    assert.equal(await countSettles(rows(page), expected.length), expected.length);
    assert.deepEqual((await shownNames(page)).sort(), [...expected].sort());
  };

  // name: a case-insensitive substring
  await page.getByTestId('filter-name').fill('SKILL');
  await page.getByTestId('filter-search').click();
  await settle(all.filter((r) => r.name.toLowerCase().includes('skill')).map((r) => r.name));

  // toolset, from the package's list of toolsets, then any other a row still names (an orphan's: the tools
  // of an MCP server disabled or deleted, say)
  await page.getByTestId('filter-reset').click();
  await settle(all.map((r) => r.name));
  const toolsets = [...new Set([...catalogInfo(catalog).toolsets.map((t) => t.name), ...all.map((r) => r.toolset)])];
  await page.getByTestId('filter-toolset').click();
  const offered = await page.locator('.popper-filter-toolset .el-select-dropdown__item').allInnerTexts();
  assert.deepEqual(
    offered.map((s) => s.trim()),
    toolsets,
  );
  await pickOption(page, 'popper-filter-toolset', 'planning');
  await page.getByTestId('filter-search').click();
  await settle(getToolNamesByToolset('planning', catalog));

  // status: disabled tools only (bash switched off for the test)
  await apiData('POST', '/admin/netaclaw/tool/update', { name: 'bash', status: 0 });
  try {
    await page.getByTestId('filter-reset').click();
    await settle(all.map((r) => r.name));
    await page.getByTestId('filter-status').click();
    await pickOption(page, 'popper-filter-status', '禁用');
    await page.getByTestId('filter-search').click();
    await settle(['bash']);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', { name: 'bash', status: 1 });
  }

  // capability: the package's vocabulary; vision gives the catalog's vision tools
  await page.getByTestId('filter-reset').click();
  await page.getByTestId('filter-capability').click();
  const caps = await page.locator('.popper-filter-capability .el-select-dropdown__item').allInnerTexts();
  // labelled with the page's words (i18n.ts vocab.capability), in the package's order
  const WORDS = { text: '文本', vision: '视觉', multimodal: '多模态' };
  assert.deepEqual(
    caps.map((s) => s.trim()),
    catalogInfo(catalog).vocabulary.capability.map((c) => WORDS[c]),
  );
  await pickOption(page, 'popper-filter-capability', '视觉');
  await page.getByTestId('filter-search').click();
  await settle(all.filter((r) => r.capability === 'vision').map((r) => r.name));
  assert.deepEqual(browser.errors, []);
});
