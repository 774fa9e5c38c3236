// The agent's question (`clarify`): the turn stops and the page shows the question at the end of the
// transcript, the message box asks for the answer; after a reload the question is still there (the
// session's `pendingQuestion`); the answer, sent as the session's next message, resumes the turn and the
// model's reply quotes it; the question card is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, forFile, launch, notesWorkspace, open, scriptedChannel, send, switchLocale, uniqueName } from './helpers.mjs';
import { CLARIFY_QUESTION, MESSAGES, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

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

/** The transcript's bubbles and cards in order, each as `kind:text`. */
async function order(page) {
  return page
    .getByTestId('chat-transcript')
    .locator('[data-testid=msg-user], [data-testid=msg-question], [data-testid=tool-card][data-tool=clarify]')
    .evaluateAll((els) =>
      els.map((el) => `${el.dataset.testid}:${el.dataset.testid === 'tool-card' ? el.dataset.state : el.innerText.trim().split('\n').pop()}`),
    );
}

test('at 1280 px, an answered question stays in the transcript, followed by the answer; its card says answered (zh-CN, en), after a reload too', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('asked'), toolsets: ['base', 'planning'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId('chat-channel').waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await send(page, MESSAGES.clarify);
  await page.getByTestId('chat-pending-question').waitFor();
  // waiting: the card says so, not 成功 with a sentence of the runtime in English
  const clarify = page.getByTestId('chat-transcript').locator('[data-testid=tool-card][data-tool=clarify]');
  assert.equal(await clarify.getAttribute('data-state'), 'asked');
  assert.equal((await clarify.getByTestId('tool-card-question-state').innerText()).trim(), '等待用户回答');
  assert.doesNotMatch(await clarify.innerText(), /成功|waiting for the user's answer/);

  await send(page, 'short');
  await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'A short story it is.' }).waitFor();
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  const expected = ['msg-user:' + MESSAGES.clarify, 'tool-card:answered', 'msg-question:' + CLARIFY_QUESTION, 'msg-user:short'];
  assert.deepEqual(await order(page), expected, 'live: the question, then the answer');
  assert.equal((await clarify.getByTestId('tool-card-question-state').innerText()).trim(), '用户已回答');
  assert.doesNotMatch(await clarify.innerText(), /成功|waiting for the user's answer/);

  // stored: the same after a reload, in both locales
  await page.reload();
  await page.getByTestId('chat-transcript').getByTestId('msg-question').waitFor();
  assert.deepEqual(await order(page), expected, 'stored: the question, then the answer');
  assert.equal(await page.getByTestId('chat-transcript').getByTestId('msg-error').count(), 0);
  assert.match(await page.getByTestId('msg-question').innerText(), /Agent 的提问/);
  await switchLocale(page, 'en');
  assert.equal((await clarify.getByTestId('tool-card-question-state').innerText()).trim(), 'Answered');
  assert.match(await clarify.getByTestId('tool-card-question').innerText(), /the answer follows the question/);
  assert.match(await page.getByTestId('msg-question').innerText(), /The agent asks/);
  await switchLocale(page, 'zh-CN');
  assert.deepEqual(browser.errors, []);
  await page.close();
});
