// The MCP servers section of Tool 管理, with a real MCP server (the SDK-built js/backend/examples/mcp-demo-server.mjs
// the backend tests use): the dialog's field rules first, then a backend refusal shown as a sentence; a stdio
// server added through the dialog with a secret env value that never reaches the page; "refresh tools"
// starts it and its mcp__<server>__<tool> rows appear in the tool table; an edit keeps the secret and waits
// for the next refresh; an http server the global net() rules do not allow is refused as the dialog said
// while its URL was typed (its row names the host), then allowed by a rule the dialog names and found
// unreachable: failed; disabled, refreshed (its tools become orphan rows), deleted; nothing sticks out of the card at 1280 and 1920 px, zh-CN and en.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  api,
  apiData,
  assertLocalizedErrors,
  checkPage,
  countSettles,
  forFile,
  launch,
  open,
  pickOption,
  screenshot,
  switchLocale,
  settled,
} from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(here, '..', '..', '..', 'js', 'backend', 'examples', 'mcp-demo-server.mjs');
const SECRET = 'sk-e2e-mcp-secret-0123456789';
const browser = forFile(launch);

/** A server name the backend accepts (lowercase, at most 30 characters), new at each run. */
const serverName = (prefix) => `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const mcpRow = (page, name) => page.locator(`[data-testid=mcp-table] .el-table__body-wrapper tr.mcp-row-${name}`);
const toolRows = (page) => page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row');
async function servers() {
  return (await apiData('POST', '/admin/netaclaw/mcp/page', { size: 1000 })).list;
}

/** Shows the tool rows whose name starts with `prefix` (the page's name filter). */
async function filterTools(page, prefix) {
  await page.getByTestId('filter-name').fill(prefix);
  await page.getByTestId('filter-search').click();
}

/** The MCP table fits its card: no horizontal scrolling, its name column fixed; nothing sticks out. */
async function checkLayout(page, at) {
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await settled(page);
    await checkPage(page, `tools page, ${at} ${width}px`);
    const wrap = page.locator('[data-testid=mcp-table] .el-table__body-wrapper .el-scrollbar__wrap').first();
    const [scroll, client] = await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(scroll <= client + 1, `${at} ${width}px: the MCP table scrolls sideways (${scroll} > ${client})`);
    const first = page.locator('[data-testid=mcp-table] .el-table__header th').first();
    assert.match(await first.getAttribute('class'), /el-table-fixed-column--left/, `${at} ${width}px: the name column is fixed`);
  }
  await page.setViewportSize({ width: 1920, height: 1080 });
}

test('MCP servers: add through the dialog, refresh, its tools in the tool table, edit keeping the secret, disable, delete', async () => {
  const page = await open(browser.context, '/agent/tools?tab=mcp');
  const section = page.getByTestId('mcp-section');
  await section.getByTestId('mcp-table').waitFor();
  const before = (await servers()).length;

  // the dialog's rules first: a message under each field, in the page's language, nothing sent
  await section.getByTestId('mcp-add').click();
  const dialog = page.getByTestId('mcp-dialog');
  await dialog.getByTestId('mcp-save').click();
  assert.equal(await countSettles(dialog.locator('.el-form-item__error'), 2), 2, 'name and command are required');
  await dialog.getByTestId('mcp-name-item').locator('.el-form-item__error').waitFor();
  await dialog.getByTestId('mcp-command-item').locator('.el-form-item__error').waitFor();
  await assertLocalizedErrors(dialog, 'zh-CN', 'an empty MCP server form');
  await dialog.getByTestId('mcp-name').fill('Bad Name');
  await dialog.getByTestId('mcp-command').fill('node');
  await dialog.getByTestId('mcp-save').click();
  await dialog.getByTestId('mcp-name-item').locator('.el-form-item__error', { hasText: '小写字母' }).waitFor();
  // an env row with a name that is no variable name
  await dialog.getByTestId('mcp-env-add').click();
  await dialog.getByTestId('mcp-env-name').last().fill('NOT A NAME');
  await dialog.getByTestId('mcp-save').click();
  await dialog.getByTestId('mcp-env-row').locator('.el-form-item__error').waitFor();
  await assertLocalizedErrors(dialog, 'zh-CN', 'a bad name and a bad variable name');
  assert.equal((await servers()).length, before, 'nothing was sent');

  // the backend's refusal (a name taken since the page loaded): its sentence in the page's language
  const taken = await apiData('POST', '/admin/netaclaw/mcp/add', { name: serverName('taken'), transport: 'http', url: 'http://127.0.0.1:9/mcp' });
  await dialog.getByTestId('mcp-name').fill(taken.name);
  await dialog.getByTestId('mcp-env-name').last().fill('DEMO_TOKEN');
  await dialog.getByTestId('mcp-env-value').last().fill(SECRET);
  await dialog.getByTestId('mcp-save').click();
  const refused = dialog.getByTestId('mcp-error');
  await refused.waitFor();
  const direct = await api('POST', '/admin/netaclaw/mcp/add', { name: taken.name, transport: 'stdio', command: 'node' });
  assert.equal(direct.status, 400);
  assert.equal(direct.body.error.code, 'invalid_input');
  assert.ok(!(await refused.innerText()).includes(direct.body.error.message), await refused.innerText());
  await assertLocalizedErrors(dialog, 'zh-CN', 'a name taken');
  await apiData('POST', '/admin/netaclaw/mcp/delete', { id: taken.id });

  // a stdio server: the SDK-built fixture, a secret in its env
  const name = serverName('e2e');
  await dialog.getByTestId('mcp-name').fill(name);
  await dialog.getByTestId('mcp-args').fill(SERVER);
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  const added = (await servers()).find((s) => s.name === name);
  assert.ok(added, 'stored');
  assert.deepEqual([added.transport, added.command, added.args, added.enabled], ['stdio', 'node', [SERVER], true]);
  assert.deepEqual(Object.keys(added.env), ['DEMO_TOKEN']);
  const masked = added.env.DEMO_TOKEN;
  assert.equal(masked, `${SECRET.slice(0, 3)}…${SECRET.slice(-4)}`);
  const row = mcpRow(page, name);
  await row.waitFor();
  assert.equal(await row.locator('[data-role=transport]').getAttribute('data-transport'), 'stdio');
  assert.equal((await row.locator('[data-role=target]').innerText()).trim(), `node ${SERVER}`);
  assert.deepEqual(await row.locator('[data-role=env] [data-env]').evaluateAll((els) => els.map((e) => e.dataset.env)), ['DEMO_TOKEN']);
  assert.equal(await row.locator('[data-role=state]').getAttribute('data-status'), 'pending');
  const html = await page.content();
  assert.ok(!html.includes(SECRET) && !html.includes(masked), 'no env value on the page, not even masked');

  // refresh tools: the server is started, its tools join the table (catalog tools, not orphans)
  await section.getByTestId('mcp-refresh').click();
  await row.locator('[data-role=state][data-status=connected]').waitFor({ timeout: 60_000 });
  assert.equal(await row.getByTestId('mcp-tool-count').getAttribute('data-count'), '3');
  const tools = ['echo', 'note', 'whoami'].map((t) => `mcp__${name}__${t}`);
  await page.locator('#tab-tools').click();
  await filterTools(page, `mcp__${name}__`);
  assert.equal(await countSettles(toolRows(page), 3), 3);
  for (const t of tools) await page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-${t}`).waitFor();
  assert.equal(await toolRows(page).getByTestId('orphan').count(), 0, 'in the catalog the page reloaded');
  assert.equal((await apiData('GET', `/admin/netaclaw/tool/info?name=${tools[0]}`)).toolset, `mcp:${name}`);
  await screenshot(page, 'mcp-servers');
  await page.locator('#tab-mcp').click();

  // edit: the saved value is not shown; left empty it is kept
  await row.getByTestId('mcp-edit').click();
  await dialog.waitFor();
  const value = dialog.getByTestId('mcp-env-value');
  assert.equal(await value.count(), 1);
  assert.equal(await value.inputValue(), '');
  assert.equal(await dialog.getByTestId('mcp-env-name').inputValue(), 'DEMO_TOKEN');
  assert.ok(!(await page.content()).includes(masked), 'the edit dialog shows no value either');
  await dialog.getByTestId('mcp-args').fill(`${SERVER}\n--quiet`);
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  const edited = await apiData('GET', `/admin/netaclaw/mcp/info?id=${added.id}`);
  assert.deepEqual(edited.args, [SERVER, '--quiet']);
  assert.deepEqual(edited.env, { DEMO_TOKEN: masked }, 'the secret is kept');
  // what is saved runs from the next refresh on
  await row.locator('[data-role=state][data-status=pending]').waitFor();

  // an http server that cannot be reached: failed, the others go on
  const gone = serverName('gone');
  await section.getByTestId('mcp-add').click();
  await dialog.getByTestId('mcp-name').fill(gone);
  await dialog.getByTestId('mcp-transport').click();
  await pickOption(page, 'popper-mcp-transport', 'Streamable HTTP');
  await dialog.getByTestId('mcp-url').fill('ftp://127.0.0.1/mcp');
  await dialog.getByTestId('mcp-save').click();
  await dialog.getByTestId('mcp-url-item').locator('.el-form-item__error').waitFor();
  await assertLocalizedErrors(dialog, 'zh-CN', 'not an http URL');
  // as the URL is typed, the dialog says whether the global net() rules let the backend reach it: none does
  await dialog.getByTestId('mcp-url').fill('http://127.0.0.1:9/mcp');
  const net = dialog.getByTestId('mcp-net');
  await net.waitFor();
  assert.equal(await net.getAttribute('data-pattern'), '', 'no rule allows 127.0.0.1:9');
  assert.match(await net.getByTestId('mcp-net-verdict').innerText(), /后端不会连接 127\.0\.0\.1:9/);
  await net.getByTestId('mcp-net-hint').waitFor();
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  await section.getByTestId('mcp-refresh').click();
  const goneRow = mcpRow(page, gone);
  await goneRow.locator('[data-role=state][data-status=failed]').waitFor({ timeout: 60_000 });
  await goneRow.getByTestId('mcp-failed').waitFor();
  await row.locator('[data-role=state][data-status=connected]').waitFor();
  assert.equal((await goneRow.locator('[data-role=target]').innerText()).trim(), 'http://127.0.0.1:9/mcp');
  // the backend refused it as the dialog said: the host and port, no rule, on its row
  const refusedLine = goneRow.getByTestId('mcp-refused');
  await refusedLine.waitFor();
  assert.deepEqual(
    [await refusedLine.getAttribute('data-host'), await refusedLine.getAttribute('data-port'), await refusedLine.getAttribute('data-rule')],
    ['127.0.0.1', '9', ''],
  );
  assert.match(await refusedLine.innerText(), /没有网络规则允许 127\.0\.0\.1:9/);
  // a global rule allows it: the dialog names the rule; the backend then tries it (nothing listens: failed, not refused)
  const { rules: rulesBefore, version: rulesVersion } = await apiData('GET', '/admin/netaclaw/rules/info');
  await apiData('POST', '/admin/netaclaw/rules/update', { rules: { allow: ['net(127.0.0.1:9)'] }, version: rulesVersion });
  try {
    await goneRow.getByTestId('mcp-edit').click();
    await dialog.waitFor();
    await dialog.locator('[data-testid=mcp-net][data-pattern="net(127.0.0.1:9)"]').waitFor();
    assert.deepEqual([await net.getAttribute('data-pattern'), await net.getAttribute('data-level')], ['net(127.0.0.1:9)', 'global']);
    assert.match(await net.getByTestId('mcp-net-verdict').innerText(), /后端可以连接 127\.0\.0\.1:9/);
    assert.match(await net.getByTestId('mcp-net-rule').innerText(), /net\(127\.0\.0\.1:9\)/);
    assert.equal(await net.getByTestId('mcp-net-hint').count(), 0);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await section.getByTestId('mcp-refresh').click();
    await refusedLine.waitFor({ state: 'detached', timeout: 60_000 });
    await goneRow.locator('[data-role=state][data-status=failed]').waitFor();
  } finally {
    const { version } = await apiData('GET', '/admin/netaclaw/rules/info');
    await apiData('POST', '/admin/netaclaw/rules/update', { rules: rulesBefore, version });
  }

  await checkLayout(page, 'zh-CN');
  await switchLocale(page, 'en');
  assert.equal((await row.getByTestId('mcp-status').innerText()).trim(), 'Connected');
  await checkLayout(page, 'en');
  await section.getByTestId('mcp-add').click();
  await dialog.getByTestId('mcp-save').click();
  assert.equal(await countSettles(dialog.locator('.el-form-item__error'), 2), 2);
  await assertLocalizedErrors(dialog, 'en', 'an empty MCP server form, en');
  assert.deepEqual(await dialog.locator('.el-form-item__error').allInnerTexts(), ['Enter a name.', 'A stdio server needs a command.']);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await switchLocale(page, 'zh-CN');

  // disabled from its row: after a refresh its tools are no longer in the catalog (orphan rows)
  await row.getByTestId('mcp-enabled-switch').click();
  await row.locator('[data-role=state][data-status=disabled]').waitFor();
  assert.equal((await apiData('GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).enabled, false);
  await section.getByTestId('mcp-refresh').click();
  await goneRow.locator('[data-role=state][data-status=failed]').waitFor();
  // the tool table filtered again to this server's tools (the locale switch reloaded the page)
  await page.locator('#tab-tools').click();
  await filterTools(page, `mcp__${name}__`);
  assert.equal(await countSettles(toolRows(page).getByTestId('orphan'), 3), 3, 'its three tools are orphans now');
  await page.locator('#tab-mcp').click();

  // deleted, after a confirmation
  for (const n of [name, gone]) {
    await mcpRow(page, n).getByTestId('mcp-delete').click();
    await page.locator('.el-popconfirm__action .el-button--primary').last().click();
    await mcpRow(page, n).waitFor({ state: 'detached' });
  }
  assert.equal((await api('GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).status, 404);
  assert.equal((await servers()).length, before);
  assert.deepEqual(browser.errors, []);
});
