// The batch console of the chat page: explicit calls run in a real worker (POST /subagent/run) — one
// allowed, one denied with the package's label; the tool's JSON Schema as a hint; bad JSON caught in
// the page (nothing sent); the backend's 400 shown with its message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getToolSchema, label } from '@netaclaw/tool-policy';
import { api, apiData, assertLocalizedErrors, forFile, launch, notesWorkspace, open, pickOption, switchLocale, uniqueName } from './helpers.mjs';
import { NOTES } from './model-script.mjs';

const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const zh = (group, code) => label(group, code, 'zh-CN');

async function setCall(con, page, i, name, args) {
  const call = con.getByTestId('console-call').nth(i);
  await call.getByTestId('console-call-name').click();
  await pickOption(page, `popper-console-call-${i}`, name);
  await call.getByTestId('console-call-args').fill(args);
  return call;
}

async function batchCount(agentId) {
  return (await apiData('GET', `/admin/netaclaw/subagent/page?agentId=${agentId}`)).total;
}

test('the batch console runs calls in a real worker: one allowed, one denied with its label', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('console'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  const con = page.getByTestId('batch-console');
  await con.waitFor();
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill(workspace.path);

  const first = await setCall(con, page, 0, 'read_file', '{ "path": "notes.txt" }');
  // the tool's arguments schema, from the catalog, as a hint
  await first.locator('.el-collapse-item__header').click();
  const schema = JSON.parse(await first.getByTestId('console-call-schema').innerText());
  assert.deepEqual(schema, getToolSchema('read_file').parameters);

  await con.getByTestId('console-add').click();
  await setCall(con, page, 1, 'bash', '{ "command": "cat notes.txt" }');
  await con.getByTestId('console-run').click();

  const batch = con.getByTestId('console-runs').locator('[data-testid=batch-card]').first();
  await batch.waitFor();
  assert.equal(await batch.getAttribute('data-status'), 'completed');
  const read = batch.locator('[data-testid=tool-card][data-tool=read_file]');
  assert.equal(await read.getAttribute('data-state'), 'ok');
  assert.equal((await read.locator('.decision').innerText()).trim(), zh('routes', 'worker-local'));
  assert.match(await read.getByTestId('tool-card-output').innerText(), new RegExp(NOTES));
  const bash = batch.locator('[data-testid=tool-card][data-tool=bash]');
  assert.equal(await bash.getAttribute('data-state'), 'refused');
  assert.equal((await bash.getByTestId('tool-card-denied').innerText()).trim(), `没有执行：${zh('reasons', 'shell_disabled_by_policy')}。`);
  await bash.getByTestId('tool-card-denied').waitFor();

  // what the page shows is the stored batch
  const id = Number(await batch.getAttribute('data-batch'));
  const info = await apiData('GET', `/admin/netaclaw/subagent/info?id=${id}`);
  assert.equal(info.driver, 'calls');
  assert.deepEqual(info.policy.workspaceRoots, [workspace.path]);
  assert.deepEqual(
    info.calls.map((c) => [c.name, c.decision, c.reason, c.ok]),
    [
      ['read_file', 'worker-local', null, true],
      ['bash', 'denied', 'shell_disabled_by_policy', false],
    ],
  );
  assert.deepEqual(browser.errors, []);
});

test('bad JSON is caught in the page, under the call; a 400 from the backend names its field, in the page language', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('console-bad'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  const con = page.getByTestId('batch-console');
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill(workspace.path);
  const before = await batchCount(agent.id);

  await setCall(con, page, 0, 'read_file', '{ "path": ');
  await con.getByTestId('console-run').click();
  const error = con.getByTestId('console-error');
  await error.waitFor();
  // the call's own field says it, in the page's words (not the browser's JSON parser's)
  const argsItem = con.getByTestId('console-call').first().getByTestId('console-call-args-item');
  await argsItem.locator('.el-form-item__error').waitFor();
  assert.match(await argsItem.locator('.el-form-item__error').innerText(), /第 1 个调用的参数不是合法的 JSON/);
  await assertLocalizedErrors(con, 'zh-CN', 'bad JSON');

  // JSON, but not an object: a message of its own
  const badJson = await error.innerText();
  await con.getByTestId('console-call').first().getByTestId('console-call-args').fill('["notes.txt"]');
  await con.getByTestId('console-run').click();
  await page.waitForFunction((prev) => {
    const text = document.querySelector('[data-testid=console-error]')?.textContent ?? '';
    return text !== '' && !text.includes(prev);
  }, badJson.trim());
  await assertLocalizedErrors(con, 'zh-CN', 'not an object');
  // a call without a tool name: under its name field
  await con.getByTestId('console-add').click();
  await con.getByTestId('console-run').click();
  await con
    .getByTestId('console-call')
    .nth(1)
    .getByTestId('console-call-name-item')
    .locator('.el-form-item__error', { hasText: '第 2 个调用没有工具名' })
    .waitFor();
  await con.getByTestId('console-call').nth(1).getByTestId('console-call-remove').click();
  assert.equal(await batchCount(agent.id), before, 'nothing was sent');

  // a relative working directory: the backend answers 400 invalid_input naming sessionCwd; the page
  // names the field in its own words
  await con.getByTestId('console-call').first().getByTestId('console-call-args').fill('{ "path": "notes.txt" }');
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill('relative/dir');
  const direct = await api('POST', '/admin/netaclaw/subagent/run', {
    agentId: agent.id,
    sessionCwd: 'relative/dir',
    calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
  });
  assert.equal(direct.status, 400);
  assert.equal(direct.body.error.code, 'invalid_input');
  await con.getByTestId('console-run').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid=console-error]')?.textContent ?? '').includes('工作目录'));
  assert.ok(!(await error.innerText()).includes(direct.body.error.message), await error.innerText());
  await assertLocalizedErrors(con, 'zh-CN', 'backend 400');
  // in English
  await page.getByTestId('locale-en').click();
  await con.getByTestId('console-run').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid=console-error]')?.textContent ?? '').includes('Working directory'));
  await assertLocalizedErrors(con, 'en', 'backend 400, en');
  await page.getByTestId('locale-zh').click();
  assert.equal(await batchCount(agent.id), before);
  assert.deepEqual(browser.errors, []);
});

test('at 1280 px, an unknown tool is named as such, shown under its call before the run and on its card after (zh-CN, en)', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('console-unknown'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  const con = page.getByTestId('batch-console');
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill(workspace.path);
  const call = con.getByTestId('console-call').first();
  await call.getByTestId('console-call-name').click();
  await page.keyboard.type('no_such_tool');
  await page.keyboard.press('Enter');
  // the sentence is shown as it is, not folded into a collapsed panel
  const hint = call.getByTestId('console-call-unknown');
  await hint.waitFor();
  assert.ok(await hint.isVisible());
  assert.match(await hint.innerText(), /没有名为 no_such_tool 的工具：这次调用会被拒绝/);
  assert.equal(await call.locator('.el-collapse').count(), 0, 'no collapsed parameters panel for a tool that does not exist');

  await con.getByTestId('console-run').click();
  const batch = con.getByTestId('console-runs').locator('[data-testid=batch-card]').first();
  await batch.waitFor();
  const card = batch.locator('[data-testid=tool-card][data-tool=no_such_tool]');
  assert.equal(await card.getAttribute('data-state'), 'refused');
  // the runtime's reason stays the record's; the card says what it means here: no such tool
  assert.equal(await card.getAttribute('data-reason'), 'not_selected_for_subagent');
  assert.equal((await card.getByTestId('tool-card-denied').innerText()).trim(), '没有名为 no_such_tool 的工具。');
  assert.doesNotMatch(await card.innerText(), new RegExp(zh('reasons', 'not_selected_for_subagent')));
  await switchLocale(page, 'en');
  assert.equal((await card.getByTestId('tool-card-denied').innerText()).trim(), 'No tool named no_such_tool exists.');
  assert.match(await hint.innerText(), /No tool named no_such_tool exists: this call will be denied\./);
  await switchLocale(page, 'zh-CN');
  assert.deepEqual(browser.errors, []);
});
