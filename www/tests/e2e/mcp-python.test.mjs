// A Python MCP server from PyPI in the pages: `mcp-server-time` (the reference time server, built on FastMCP,
// installed by scripts/setup-mcp-python.sh into the project's venv .tools/mcp-python) added through the MCP
// dialog of Tool 管理, refreshed, its tools in the tool table, and get_current_time called from the chat
// with the scripted model (the card shows its answer, the reply quotes it). Then the MCP section's state
// of a stdio server that is down — its last stderr lines, when it starts again, its restarts, read again
// by the page as the restarts go on — and the dialog's path marks, zh-CN and en.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  apiData,
  assertLocalizedErrors,
  checkPage,
  forFile,
  launch,
  notesWorkspace,
  open,
  pickOption,
  screenshot,
  scriptedChannel,
  switchLocale,
} from './helpers.mjs';
import { MESSAGES, NOTES, TIME_ZONE } from './model-script.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const TIME_SERVER = resolve(here, '..', '..', '..', '.tools', 'mcp-python', 'bin', 'mcp-server-time');
const channel = forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const serverName = (prefix) => `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const mcpRow = (page, name) => page.locator(`[data-testid=mcp-table] .el-table__body-wrapper tr.mcp-row-${name}`);

test('mcp-server-time from PyPI: added through the MCP dialog, its tools in the table, get_current_time called from the chat', async () => {
  assert.ok(existsSync(TIME_SERVER), `${TIME_SERVER} is missing: run scripts/setup-mcp-python.sh (scripts/setup.sh runs it)`);
  assert.ok(channel.channel, 'the scripted channel');
  const page = await open(browser.context, '/agent/tools?tab=mcp');
  const section = page.getByTestId('mcp-section');
  await section.getByTestId('mcp-table').waitFor();

  const name = serverName('pytime');
  await section.getByTestId('mcp-add').click();
  const dialog = page.getByTestId('mcp-dialog');
  await dialog.getByTestId('mcp-name').fill(name);
  await dialog.getByTestId('mcp-command').fill(TIME_SERVER);
  await dialog.getByTestId('mcp-args').fill('--local-timezone=UTC');
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  const row = mcpRow(page, name);
  await row.locator('[data-role=state][data-status=pending]').waitFor();

  // refresh: started in the sandbox from its venv; both tools registered, none skipped
  await section.getByTestId('mcp-refresh').click();
  await row.locator('[data-role=state][data-status=connected]').waitFor({ timeout: 60_000 });
  assert.equal(await row.getByTestId('mcp-tool-count').getAttribute('data-count'), '2');
  assert.equal(await row.getByTestId('mcp-skipped').count(), 0);
  const tool = `mcp__${name}__get_current_time`;
  await page.locator('#tab-tools').click();
  await page.getByTestId('filter-name').fill(`mcp__${name}__`);
  await page.getByTestId('filter-search').click();
  await page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-${tool}`).waitFor();
  await page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-mcp__${name}__convert_time`).waitFor();

  // a chat turn: the scripted model calls get_current_time, the card shows the server's answer
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: '时钟 · Clock', toolsets: ['base', `mcp:${name}`] });
  const chat = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await chat.getByTestId('chat-channel').waitFor();
  await chat.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await chat.getByTestId('chat-offered').locator(`[data-tool=${tool}]`).waitFor();
  await chat.getByTestId('chat-input').fill(MESSAGES.time);
  await chat.getByTestId('chat-send').click();
  const transcript = chat.getByTestId('chat-transcript');
  const answer = transcript.getByTestId('msg-assistant').filter({ hasText: `In ${TIME_ZONE} it is` });
  await answer.waitFor({ timeout: 60_000 });
  await chat.getByTestId('chat-answering').waitFor({ state: 'detached' });
  const card = transcript.locator(`[data-testid=tool-card][data-tool=${tool}]`);
  assert.equal(await card.getAttribute('data-state'), 'ok');
  assert.equal(await card.getAttribute('data-decision'), 'main-process-proxy');
  const output = await card.getByTestId('tool-card-output').innerText();
  const told = JSON.parse(output);
  assert.equal(told.timezone, TIME_ZONE);
  assert.match(told.datetime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);
  assert.ok(Math.abs(Date.parse(told.datetime) - Date.now()) < 300_000, told.datetime);
  assert.match(await answer.innerText(), new RegExp(`In ${TIME_ZONE} it is ${told.datetime.replace(/[+]/g, '\\+')}`));
  assert.match(await card.getByTestId('tool-card-args').innerText(), new RegExp(`"timezone": "${TIME_ZONE}"`));
  await screenshot(chat, 'chat-mcp-python');
  await chat.close();

  await apiData('POST', '/admin/netaclaw/mcp/delete', {
    id: (await apiData('POST', '/admin/netaclaw/mcp/page', { size: 1000 })).list.find((s) => s.name === name).id,
  });
  await apiData('POST', '/admin/netaclaw/mcp/refresh', {});
  assert.deepEqual(browser.errors, []);
});

test('a stdio server that is down: its last stderr lines, when it starts again, its restarts; the dialog marks path arguments', async () => {
  // a server whose process writes two lines on stderr and exits as it starts
  const name = serverName('down');
  const script = "process.stderr.write('e2e: reading the configuration\\ne2e: the configuration is broken\\n'); process.exit(2)";
  const added = await apiData('POST', '/admin/netaclaw/mcp/add', { name, transport: 'stdio', command: 'node', args: ['-e', script] });
  const page = await open(browser.context, '/agent/tools?tab=mcp');
  const section = page.getByTestId('mcp-section');
  const row = mcpRow(page, name);
  await row.waitFor();
  await section.getByTestId('mcp-refresh').click();
  await row.locator('[data-role=state][data-status=failed]').waitFor({ timeout: 60_000 });
  await row.getByTestId('mcp-retry-at').waitFor();
  assert.match(await row.getByTestId('mcp-retry-at').innerText(), /将于 .+ 自动重启/);
  const stderr = row.getByTestId('mcp-stderr');
  assert.match(await stderr.locator('summary').innerText(), /进程最后输出的 2 行错误信息/);
  await stderr.locator('summary').click();
  assert.equal((await stderr.locator('pre').innerText()).trim(), 'e2e: reading the configuration\ne2e: the configuration is broken');
  // the page reads the state again when a restart is due: the count goes up without a reload
  const restarts = row.getByTestId('mcp-restarts');
  await restarts.waitFor();
  const first = Number(await restarts.getAttribute('data-count'));
  assert.ok(first >= 1, String(first));
  await row.locator(`[data-testid=mcp-restarts]:not([data-count="${first}"])`).waitFor({ timeout: 20_000 });
  assert.ok(Number(await restarts.getAttribute('data-count')) > first);
  assert.match(await restarts.innerText(), /已重启 \d+ 次/);
  await screenshot(page, 'mcp-server-down');
  await switchLocale(page, 'en');
  assert.match(await row.getByTestId('mcp-retry-at').innerText(), /^Starts again automatically at /);
  assert.match(await row.getByTestId('mcp-restarts').innerText(), /^Restarted \d+ times?$/);
  assert.match(await stderr.locator('summary').innerText(), /^The last 2 lines its process wrote to stderr$/);
  await switchLocale(page, 'zh-CN');

  // path marks in the dialog: an empty row is said under it, in the page's language; saved as the map
  await row.getByTestId('mcp-edit').click();
  const dialog = page.getByTestId('mcp-dialog');
  await dialog.getByTestId('mcp-marks').waitFor();
  assert.match(await dialog.getByTestId('mcp-marks').innerText(), /文件路径/);
  await dialog.getByTestId('mcp-mark-add').click();
  await dialog.getByTestId('mcp-save').click();
  await dialog.getByTestId('mcp-mark-row').locator('.el-form-item__error', { hasText: '请填写工具名和参数名。' }).waitFor();
  await assertLocalizedErrors(dialog, 'zh-CN', 'an empty path mark');
  await dialog.getByTestId('mcp-mark-tool').fill('read_note');
  await dialog.getByTestId('mcp-mark-arg').fill('file');
  await dialog.getByTestId('mcp-mark-add').click();
  await dialog.getByTestId('mcp-mark-tool').last().fill('save_note');
  await dialog.getByTestId('mcp-mark-arg').last().fill('target');
  await dialog.getByTestId('mcp-mark-mode').last().click();
  await pickOption(page, 'popper-mcp-mark-mode-1', '要写入的路径');
  await checkPage(page, 'the MCP dialog with two path marks');
  await screenshot(page, 'mcp-dialog-path-marks');
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  const saved = await apiData('GET', `/admin/netaclaw/mcp/info?id=${added.id}`);
  assert.deepEqual(saved.pathMarks, { read_note: { file: 'read' }, save_note: { target: 'write' } });
  // an edit shows them again; a row removed is gone from the map
  await row.getByTestId('mcp-edit').click();
  await dialog.getByTestId('mcp-mark-row').nth(1).waitFor();
  assert.deepEqual(await dialog.getByTestId('mcp-mark-tool').evaluateAll((els) => els.map((e) => e.value)), ['read_note', 'save_note']);
  await dialog.getByTestId('mcp-mark-remove').first().click();
  await dialog.getByTestId('mcp-save').click();
  await dialog.waitFor({ state: 'hidden' });
  assert.deepEqual((await apiData('GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).pathMarks, { save_note: { target: 'write' } });

  // (an edit is saved for the next refresh: the server shows pending meanwhile)
  await row.locator('[data-role=state][data-status=pending]').waitFor();
  // in English
  await switchLocale(page, 'en');
  await row.getByTestId('mcp-edit').click();
  assert.match(await dialog.getByTestId('mcp-marks').innerText(), /Mark which arguments of which of this server’s tools are file paths/);
  await dialog.getByTestId('mcp-mark-add').click();
  await dialog.getByTestId('mcp-save').click();
  await dialog.getByTestId('mcp-mark-row').locator('.el-form-item__error', { hasText: 'Enter the tool and the argument.' }).waitFor();
  await assertLocalizedErrors(dialog, 'en', 'an empty path mark, en');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await switchLocale(page, 'zh-CN');

  await apiData('POST', '/admin/netaclaw/mcp/delete', { id: added.id });
  await apiData('POST', '/admin/netaclaw/mcp/refresh', {});
  assert.deepEqual(browser.errors, []);
});
