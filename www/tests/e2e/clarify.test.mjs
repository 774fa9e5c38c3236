// The agent's question (`clarify`): the turn stops and the page shows the question at the end of the
// transcript, the message box asks for the answer; after a reload the question is still there (the
// session's `pendingQuestion`); the answer, sent as the session's next message, resumes the turn and the
// model's reply quotes it; the question card is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { CLARIFY_QUESTION, MESSAGES, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

async function send(page, text) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
}

test('a question of the agent waits for the answer, across a reload; the answer resumes the turn', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('asker'), toolsets: ['base', 'planning'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.getByTestId('chat-channel').waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await send(page, MESSAGES.clarify);
  const card = page.getByTestId('chat-pending-question');
  await card.waitFor();
  assert.match(await card.innerText(), new RegExp(CLARIFY_QUESTION.replace('?', '\\?')));
  const input = page.getByTestId('chat-input');
  assert.equal(await input.getAttribute('data-answering'), 'true');
  await page.waitForURL(/session=\d+/);
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const info = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.deepEqual(info.pendingQuestion, { callId: 'clarify_1', question: CLARIFY_QUESTION });

  // still waiting after a reload
  await page.reload();
  await card.waitFor();
  assert.equal(await page.getByTestId('chat-input').getAttribute('data-answering'), 'true');

  await send(page, 'long');
  await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'A long story it is.' }).waitFor();
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  assert.equal(await card.count(), 0, 'the question is answered');
  assert.equal(await page.getByTestId('chat-input').getAttribute('data-answering'), 'false');
  const after = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.equal(after.pendingQuestion, null);
  await page.close();
});
