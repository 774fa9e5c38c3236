// 模型渠道: add, edit (the key only ever masked, kept when the field is left empty), make default,
// delete — a channel an agent uses is refused with the backend's message; the chat page shows an
// agent's channel, and without any channel the demonstration model while the batch console works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogInfo } from '@netaclaw/tool-policy';
import { api, apiData, assertLocalizedErrors, countSettles, forFile, launch, notesWorkspace, open, pickOption, screenshot, uniqueName } from './helpers.mjs';
import { NOTES } from './model-script.mjs';

const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const KEY = 'sk-e2e-0123456789abcdef';

async function channels() {
  return (await apiData('POST', '/admin/netaclaw/channel/page', { size: 1000 })).list;
}
const row = (page, id) => page.locator(`[data-testid=channel-table] .el-table__body-wrapper tr.channel-row-${id}`);

async function fillDialog(page, values) {
  const d = page.getByTestId('channel-dialog');
  for (const [testid, value] of Object.entries(values)) await d.getByTestId(testid).fill(value);
  return d;
}

test('model channels: add, edit with the key kept and masked, make default, delete; a channel in use is refused', async () => {
  const page = await open(browser.context, '/agent/channels');
  await page.getByTestId('channels-page').waitFor();

  // add: the key is typed once, and from then on shown only as the backend masks it
  const name = uniqueName('deepseek');
  await page.getByTestId('channel-add').click();
  // the form's own rules first: a message under each field, in the page's language, nothing sent
  const empty = page.getByTestId('channel-dialog');
  await empty.getByTestId('channel-save').click();
  assert.equal(await countSettles(empty.locator('.el-form-item__error'), 3), 3);
  await assertLocalizedErrors(empty, 'zh-CN', 'empty channel form');
  await empty.getByTestId('channel-base-url').fill('api.deepseek.com');
  await empty.getByTestId('channel-save').click();
  await empty.locator('.el-form-item__error', { hasText: 'http://' }).waitFor();
  await assertLocalizedErrors(empty, 'zh-CN', 'a base URL without a scheme');
  const beforeAdd = (await channels()).length;
  const dialog = await fillDialog(page, {
    'channel-name': name,
    'channel-base-url': 'https://api.deepseek.com/',
    'channel-model': 'deepseek-chat',
    'channel-api-key': KEY,
  });
  await dialog.getByTestId('channel-capability').click();
  const options = (await page.locator('.popper-channel-capability .el-select-dropdown__item').allInnerTexts()).map((s) => s.trim());
  // the package's vocabulary, in its order, labelled with the page's words (i18n.ts vocab.capability)
  const WORDS = { text: '文本', vision: '视觉', multimodal: '多模态' };
  assert.deepEqual(
    options,
    catalogInfo().vocabulary.capability.map((c) => WORDS[c]),
    'the capabilities are the package vocabulary',
  );
  await pickOption(page, 'popper-channel-capability', '文本');
  await dialog.getByTestId('channel-save').click();
  await dialog.waitFor({ state: 'hidden' });
  const added = (await channels()).find((c) => c.name === name);
  assert.equal((await channels()).length, beforeAdd + 1, 'one channel added');
  assert.ok(added, 'stored');
  assert.equal(added.baseUrl, 'https://api.deepseek.com');
  assert.equal(added.hasApiKey, true);
  await row(page, added.id).waitFor();
  assert.equal((await row(page, added.id).locator('[data-role=key]').innerText()).trim(), added.apiKeyMasked);
  assert.equal(added.apiKeyMasked, `${KEY.slice(0, 3)}…${KEY.slice(-4)}`);
  assert.equal((await row(page, added.id).locator('[data-role=base-url]').innerText()).trim(), 'https://api.deepseek.com');

  // edit without a key: the key is kept (the field shows only the masked form as its hint)
  await row(page, added.id).getByTestId('channel-edit').click();
  const keyInput = dialog.getByTestId('channel-api-key');
  assert.equal(await keyInput.inputValue(), '');
  assert.ok((await keyInput.getAttribute('placeholder')).includes(added.apiKeyMasked));
  await dialog.getByTestId('channel-model').fill('deepseek-reasoner');
  await dialog.getByTestId('channel-save').click();
  await dialog.waitFor({ state: 'hidden' });
  await row(page, added.id).locator('[data-role=model]', { hasText: 'deepseek-reasoner' }).waitFor();
  const edited = await apiData('GET', `/admin/netaclaw/channel/info?id=${added.id}`);
  assert.equal(edited.model, 'deepseek-reasoner');
  assert.equal(edited.hasApiKey, true);
  assert.equal(edited.apiKeyMasked, added.apiKeyMasked);
  assert.equal((await page.content()).includes(KEY), false, 'the whole key is nowhere on the page');

  // a second channel, made the default from its row
  const other = await apiData('POST', '/admin/netaclaw/channel/add', { name: uniqueName('local'), baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' });
  await page.reload();
  await row(page, other.id).getByTestId('channel-set-default').click();
  await row(page, other.id).getByTestId('channel-is-default').waitFor();
  assert.equal((await apiData('GET', `/admin/netaclaw/channel/info?id=${other.id}`)).isDefault, true);
  assert.equal(await row(page, added.id).getByTestId('channel-is-default').count(), 0);

  // an agent that names the channel: listed with it, shown on the chat page, and the delete is refused
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('uses'), toolsets: ['base'], modelChannelId: added.id });
  await page.reload();
  await row(page, added.id).locator(`[data-role=users] [data-agent="${agent.id}"]`).waitFor();
  await screenshot(page, 'channels');
  await row(page, added.id).getByTestId('channel-delete').click();
  await page.locator('.el-popconfirm__action .el-button--primary').last().click();
  const refused = page.getByTestId('channel-action-error');
  await refused.waitFor();
  const direct = await api('POST', '/admin/netaclaw/channel/delete', { id: added.id });
  assert.equal(direct.status, 400);
  assert.equal(direct.body.error.code, 'channel_in_use');
  // the page's sentence for the code, not the code nor the backend's English message
  assert.ok(!(await refused.innerText()).includes(direct.body.error.message), await refused.innerText());
  await assertLocalizedErrors(page.getByTestId('channels-page'), 'zh-CN', 'channel in use');
  await row(page, added.id).waitFor();

  const chat = await open(browser.context, `/agent/chat?agent=${agent.id}`); // the same browser tab
  const shown = chat.getByTestId('chat-channel');
  await shown.waitFor();
  assert.equal(await shown.getAttribute('data-channel'), String(added.id));
  assert.match(await shown.innerText(), /deepseek-reasoner/);

  // once no agent names it, it goes
  await apiData('POST', '/admin/netaclaw/agent/update', { id: agent.id, modelChannelId: null });
  await open(browser.context, '/agent/channels');
  await row(page, added.id).getByTestId('channel-delete').click();
  await page.locator('.el-popconfirm__action .el-button--primary').last().click();
  await row(page, added.id).waitFor({ state: 'detached' });
  assert.equal((await api('GET', `/admin/netaclaw/channel/info?id=${added.id}`)).status, 404);
  await apiData('POST', '/admin/netaclaw/channel/delete', { id: other.id });
  assert.deepEqual(browser.errors, []);
});

test('without a model channel the chat page converses with the demonstration model (NETACLAW_DEMO_MODEL=1); the batch console still works', async () => {
  for (const c of await channels()) await apiData('POST', '/admin/netaclaw/channel/delete', { id: c.id });
  assert.deepEqual(await channels(), []);
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('nochannel'), toolsets: ['base'] });
  // the run's backend has the demonstration model on, as the demo (run.mjs): it answers instead of a refusal
  const answered = await api('POST', '/api/netaclaw/chat', { agentId: agent.id, message: 'hello' });
  assert.equal(answered.status, 200, JSON.stringify(answered.body));
  assert.match(answered.body.data.reply, /demonstration model/);

  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.getByTestId('chat-demo-model').waitFor();
  assert.equal(await page.getByTestId('chat-no-channel').count(), 0);
  await page.getByTestId('chat-input').fill('hello');
  assert.equal(await page.getByTestId('chat-send').isDisabled(), false);

  // the batch console needs no model
  const con = page.getByTestId('batch-console');
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill(workspace.path);
  await con.getByTestId('console-call').first().getByTestId('console-call-name').click();
  await pickOption(page, 'popper-console-call-0', 'read_file');
  await con.getByTestId('console-call').first().getByTestId('console-call-args').fill('{ "path": "notes.txt" }');
  await con.getByTestId('console-run').click();
  const read = con.locator('[data-testid=batch-card] [data-testid=tool-card][data-tool=read_file]');
  await read.waitFor();
  assert.equal(await read.getAttribute('data-state'), 'ok');
  assert.match(await read.getByTestId('tool-card-output').innerText(), new RegExp(NOTES));

  assert.deepEqual(browser.errors, []);
});
