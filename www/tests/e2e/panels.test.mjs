// The panel beside the chat transcript: the main agent's todo list and the escalations of the session,
// from a real turn of the scripted model (model-script.mjs `panels`: `todo`, then `escalate`). An open
// escalation is resolved through the dialog (an empty resolution is refused under its field first); a
// resolution someone else gave first is shown, with the page's sentence for it; everything is still there
// after a reload. The panel sits beside the transcript on a wide screen and below it on a narrow one.
//
// The clarify answer box is covered by clarify.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, assertLocalizedErrors, forFile, launch, notesWorkspace, open, scriptedChannel, send, uniqueName } from './helpers.mjs';
import { ESCALATION_REASON, MESSAGES, NOTES, PANEL_TODOS } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

/** The todo items the panel shows: [text, done]. */
async function shownTodos(panel) {
  return panel.getByTestId('chat-todo').evaluateAll((els) => els.map((el) => [el.textContent.trim(), el.dataset.done === 'true']));
}

async function checkTodos(panel) {
  await panel
    .getByTestId('chat-todo')
    .nth(PANEL_TODOS.length - 1)
    .waitFor();
  assert.deepEqual(
    await shownTodos(panel),
    PANEL_TODOS.map((t) => [t.text, t.done]),
  );
}

test('the todos and the open escalation of a turn show beside the transcript; the escalation is resolved through the dialog and stays after a reload', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('panels'), toolsets: ['base', 'planning'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.getByTestId('chat-channel').waitFor();
  const panel = page.getByTestId('chat-panel');
  await panel.getByText('开始会话后').waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await send(page, MESSAGES.panels);
  await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'Handed over:' }).waitFor();
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });

  // the todo list, refreshed when the `todo` result came in
  await checkTodos(panel);
  // the open escalation, highlighted, with its reason and the Resolve action
  const esc = panel.locator('[data-testid=chat-escalation][data-status=open]');
  await esc.waitFor();
  assert.equal(await panel.getByTestId('chat-escalation').count(), 1);
  assert.match(await esc.getByTestId('chat-escalation-reason').innerText(), new RegExp(ESCALATION_REASON.slice(0, 30)));
  assert.match(await esc.getAttribute('class'), /is-open/);
  assert.match(await panel.getByTestId('chat-escalations-open').innerText(), /待处理 · 1/);
  const id = Number(await esc.getAttribute('data-id'));
  await page.waitForURL(/session=\d+/);
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const listed = await apiData('POST', '/admin/netaclaw/escalation/page', { sessionId, status: 'open' });
  assert.deepEqual(
    listed.list.map((e) => [e.id, e.reason]),
    [[id, ESCALATION_REASON]],
  );

  // beside the transcript on a wide screen
  const transcriptBox = await page.getByTestId('chat-transcript').boundingBox();
  const panelBox = await panel.boundingBox();
  assert.ok(panelBox.x >= transcriptBox.x + transcriptBox.width, `panel ${JSON.stringify(panelBox)} beside transcript ${JSON.stringify(transcriptBox)}`);

  // resolve: an empty resolution is refused under its field, nothing is sent
  await esc.getByTestId('chat-escalation-resolve').click();
  const dialog = page.getByTestId('resolve-dialog');
  await dialog.getByTestId('resolve-text').waitFor();
  await dialog.getByTestId('resolve-save').click();
  const fieldError = dialog.getByTestId('resolve-item').locator('.el-form-item__error');
  await fieldError.waitFor();
  assert.equal((await fieldError.innerText()).trim(), '请填写处理结果。');
  await assertLocalizedErrors(dialog, 'zh-CN', 'empty resolution');
  assert.equal((await apiData('POST', '/admin/netaclaw/escalation/page', { sessionId, status: 'open' })).list.length, 1, 'nothing was resolved');
  await dialog.getByTestId('resolve-text').fill('   ');
  await dialog.getByTestId('resolve-save').click();
  await fieldError.waitFor();
  await dialog.getByTestId('resolve-text').fill('Put the signing key in the vault.');
  await dialog.getByTestId('resolve-save').click();
  await dialog.getByTestId('resolve-text').waitFor({ state: 'hidden' });
  const resolved = panel.locator(`[data-testid=chat-escalation][data-id="${id}"][data-status=resolved]`);
  await resolved.waitFor();
  assert.match(await resolved.getByTestId('chat-escalation-resolution').innerText(), /Put the signing key in the vault\./);
  assert.equal(await resolved.getByTestId('chat-escalation-resolve').count(), 0);
  assert.equal(await panel.getByTestId('chat-escalations-open').count(), 0);
  const stored = await apiData('POST', '/admin/netaclaw/escalation/page', { sessionId });
  assert.deepEqual(
    stored.list.map((e) => [e.id, e.status, e.resolution]),
    [[id, 'resolved', 'Put the signing key in the vault.']],
  );

  // a reload shows both again, from the session's info
  const again = await open(browser.context, `/agent/chat?agent=${agent.id}&session=${sessionId}`);
  const panel2 = again.getByTestId('chat-panel');
  await checkTodos(panel2);
  const after = panel2.locator(`[data-testid=chat-escalation][data-id="${id}"][data-status=resolved]`);
  await after.waitFor();
  assert.match(await after.getByTestId('chat-escalation-resolution').innerText(), /Put the signing key in the vault\./);

  // a second escalation, resolved by someone else while the dialog is open: the page says so in its
  // language and shows the resolution that stands
  await send(again, MESSAGES.panels);
  await again.getByTestId('chat-answering').waitFor({ state: 'detached' });
  const second = panel2.locator('[data-testid=chat-escalation][data-status=open]');
  await second.waitFor();
  const secondId = Number(await second.getAttribute('data-id'));
  assert.notEqual(secondId, id);
  await second.getByTestId('chat-escalation-resolve').click();
  const dialog2 = again.getByTestId('resolve-dialog');
  await dialog2.getByTestId('resolve-text').fill('My answer.');
  await apiData('POST', '/admin/netaclaw/escalation/resolve', { id: secondId, resolution: 'The other operator was faster.' });
  await dialog2.getByTestId('resolve-save').click();
  await dialog2.getByTestId('resolve-error').waitFor();
  const texts = await assertLocalizedErrors(dialog2, 'zh-CN', 'resolved already');
  assert.ok(
    texts.some((t) => /已经有人处理过了/.test(t)),
    texts.join(' | '),
  );
  await panel2.locator(`[data-testid=chat-escalation][data-id="${secondId}"][data-status=resolved]`).getByText('The other operator was faster.').waitFor();
  await again.keyboard.press('Escape');

  // below the transcript on a screen under 1280 px
  await again.setViewportSize({ width: 1200, height: 900 });
  const t2 = await again.getByTestId('chat-transcript').boundingBox();
  const p2 = await panel2.boundingBox();
  assert.ok(p2.y >= t2.y + t2.height, `panel ${JSON.stringify(p2)} below transcript ${JSON.stringify(t2)}`);
  await again.setViewportSize({ width: 1920, height: 1080 });
  assert.deepEqual(browser.errors, []);
});
