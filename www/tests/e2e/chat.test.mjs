// 对话 · 子 Agent: a real chat against the scripted model (run.mjs points the backend's default channel
// at it; model-script.mjs is what it answers). The answer streams in over the WebSocket, each tool call
// is a card with the runtime's decision, the route and the package's reason label; a master delegates
// and its sub-agent batch shows up live with its stored routes and calls; a past session reloads; a
// turn can be cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { apiData, forFile, launch, notesWorkspace, open, screenshot, scriptedChannel, send, switchLocale, uniqueName } from './helpers.mjs';
import { MESSAGES, NOTES, SUB_TOOLS, TASK } from './model-script.mjs';

const channel = forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const zh = (group, code) => label(group, code, 'zh-CN');
const card = (scope, tool) => scope.locator(`[data-testid=tool-card][data-tool=${tool}]`);
const transcript = (page) => page.getByTestId('chat-transcript');

/** Opens the chat page for an agent and starts a new session in `cwd`. */
async function openChat(agentId, cwd) {
  const page = await open(browser.context, `/agent/chat?agent=${agentId}`);
  await page.getByTestId('chat-channel').waitFor();
  if (cwd) await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(cwd);
  return page;
}

/**
 * Checks the three cards of the `read` scenario in `scope`: each tells one story — what happened, where
 * it ran (only when it ran), the reason once (only when denied).
 */
async function checkReadCards(scope) {
  const read = card(scope, 'read_file');
  await read.waitFor();
  assert.equal(await read.getAttribute('data-state'), 'ok');
  assert.equal(await read.getAttribute('data-decision'), 'worker-local');
  assert.equal((await read.locator('.decision').innerText()).trim(), zh('routes', 'worker-local'));
  assert.match(await read.getByTestId('tool-card-output').innerText(), new RegExp(NOTES));
  assert.match(await read.getByTestId('tool-card-args').innerText(), /"path": "notes.txt"/);
  assert.equal(await read.locator('.reason-tag').count(), 0, 'a call that ran has no reason');

  // write_file in a read-only session: not offered (its route cannot run there), so refused by the executor;
  // the card says the reason that decided it — its route's, why it was not offered — in one sentence, once
  const write = card(scope, 'write_file');
  assert.equal(await write.getAttribute('data-state'), 'refused');
  assert.equal(await write.getAttribute('data-reason'), 'tool_not_offered');
  assert.equal((await write.getByTestId('tool-card-denied').innerText()).trim(), `没有执行：${zh('reasons', 'write_blocked_by_readonly_policy')}。`);
  assert.equal(await write.getByTestId('tool-card-denied').getAttribute('data-code'), 'write_blocked_by_readonly_policy');
  // and what the user can do about it, in a sentence that names the session's switch, not the policy's word
  const remedy = (await write.getByTestId('tool-card-remedy').innerText()).trim();
  assert.match(remedy, /「允许写入」/);
  assert.doesNotMatch(remedy, /readonly/);
  assert.doesNotMatch(await write.innerText(), new RegExp(zh('reasons', 'tool_not_offered')), 'never "not offered" beside the reason');
  // no "where it ran" for a call that did not run, no reason tag repeating the sentence
  assert.equal(await write.locator('.reason-tag').count(), 0);
  assert.equal(await write.locator('.decision').count(), 0);

  const mem = card(scope, 'memory_save');
  assert.equal(await mem.getAttribute('data-state'), 'refused');
  assert.equal(await mem.getAttribute('data-reason'), 'tool_not_offered');
  assert.equal((await mem.getByTestId('tool-card-denied').innerText()).trim(), `没有执行：${zh('reasons', 'toolset_not_selected')}。`);
}

test('a chat turn streams its answer; each tool call is a card with its decision, route and reason label; the session reloads', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('chat'), toolsets: ['base'] });
  const page = await openChat(agent.id, workspace.path);
  // the agent's channel: the default one, the scripted model
  assert.match(await page.getByTestId('chat-channel').innerText(), new RegExp(`${channel.channel.name}.*${process.env.E2E_MODEL}`, 's'));
  await page.getByTestId('chat-offered').locator('[data-tool=read_file]').waitFor();
  assert.equal(await page.getByTestId('chat-offered').locator('[data-tool=memory_save]').count(), 0);
  assert.equal(await page.getByTestId('chat-offered').locator('[data-tool=write_file]').count(), 0, 'a read-only session is not offered write_file');

  await send(page, MESSAGES.read);
  const answer = transcript(page).getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' });
  await answer.waitFor();
  // the answer streams in: read it once the turn is over
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  assert.match(await answer.innerText(), new RegExp(`notes.txt says: ${NOTES}`));
  const texts = (await transcript(page).getByTestId('msg-assistant').allInnerTexts()).map((s) => s.trim());
  assert.equal(texts.length, 2);
  assert.match(texts[0], /Let me look at notes\.txt\./);
  await checkReadCards(transcript(page));

  // the session now exists: in the URL, in the session list, its fields fixed
  await page.waitForURL(/session=\d+/);
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  assert.ok(sessionId > 0);
  assert.equal(await page.getByTestId('chat-fields').getAttribute('data-readonly'), 'true');
  const stored = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.equal(stored.sessionCwd, workspace.path);
  assert.deepEqual(
    stored.calls.map((c) => [c.name, c.decision, c.reason]),
    [
      ['read_file', 'worker-local', null],
      ['write_file', 'denied', 'tool_not_offered'],
      ['memory_save', 'denied', 'tool_not_offered'],
    ],
  );

  // reload (the address names only the session, by the first route, which leads to /agent/chat): it comes
  // back from session/info with its agent, the same cards
  const again = await open(browser.context, `/chat?session=${sessionId}`);
  await again.waitForURL(new RegExp(`#/agent/chat\\?(.*&)?session=${sessionId}(&|$)`));
  await checkReadCards(transcript(again));
  assert.match(await again.getByTestId('chat-agent').innerText(), new RegExp(`#${agent.id} `));
  assert.equal(await transcript(again).getByTestId('msg-user').count(), 1);
  assert.match(await transcript(again).getByTestId('msg-assistant').last().innerText(), new RegExp(NOTES));
  assert.equal(await again.getByTestId('chat-fields').getByTestId('field-cwd').inputValue(), workspace.path);
  assert.match(await again.getByTestId('chat-session').innerText(), new RegExp(`#${sessionId} `));
  // in English: the package's English labels
  await switchLocale(again, 'en');
  const writeCard = card(transcript(again), 'write_file');
  await writeCard
    .getByTestId('tool-card-denied')
    .filter({ hasText: `Did not run: ${label('reasons', 'write_blocked_by_readonly_policy', 'en')}.` })
    .waitFor();
  assert.equal((await card(transcript(again), 'read_file').locator('.decision').innerText()).trim(), label('routes', 'worker-local', 'en'));
  await switchLocale(again, 'zh-CN');
  // a second turn in the reloaded session goes on in it
  await send(again, 'thanks');
  await transcript(again).getByTestId('msg-assistant').filter({ hasText: 'You said: thanks' }).waitFor();
  const after = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.equal(after.messages.filter((m) => m.role === 'user').length, 2);
  assert.deepEqual(browser.errors, []);
});

test('fields typed while the page still loads (keyboard under the loading mask) are kept, and the session is made with them', async (t) => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('slow-load'), toolsets: ['base'] });
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // the agent's session list answers only once the fields are typed (a slow backend)
  const LIST = (url) => new URL(url).pathname.endsWith('/admin/netaclaw/session/page');
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(LIST, async (route) => {
    await held;
    await route.continue();
  });
  t.after(() => page.unroute(LIST));
  const listAsked = page.waitForRequest((req) => LIST(req.url()));
  await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await listAsked;
  const cwd = page.getByTestId('chat-fields').getByTestId('field-cwd');
  await cwd.fill(workspace.path);
  const listed = page.waitForResponse((res) => LIST(res.url()));
  release();
  await listed;
  await page.getByTestId('chat-page').locator('.el-loading-mask').waitFor({ state: 'detached' });
  assert.equal(await cwd.inputValue(), workspace.path, 'the typed working directory is kept');
  await send(page, MESSAGES.read);
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' }).waitFor();
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  await page.waitForURL(/session=\d+/);
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const stored = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.equal(stored.sessionCwd, workspace.path);
});

test('a master delegates: its sub-agent batch appears live with its stored routes and every call', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: '研究主管 · Crew master', // the README's picture shows it (agent names need not be unique)
    toolsets: ['base', 'planning', 'delegation'],
    crewRole: 'master',
  });
  const page = await openChat(agent.id, workspace.path);
  await page.getByTestId('chat-offered').locator('[data-tool=delegate_task]').waitFor();
  await send(page, MESSAGES.delegate);

  // the answer streams in: the first text is on the page while the turn still runs
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'I will ask a sub-agent.' }).waitFor();
  assert.equal(await page.getByTestId('chat-cancel').isVisible(), true, await transcript(page).innerText());
  const delegate = card(transcript(page), 'delegate_task');
  await delegate.waitFor();

  // the batch appears while it runs (the sub-agent's model takes its time), then its calls, live
  const batch = page.getByTestId('chat-batches').locator('[data-testid=batch-card][data-status=running]');
  await batch.waitFor();
  assert.equal(await batch.getAttribute('data-live'), 'true');
  const batchId = Number(await batch.getAttribute('data-batch'));
  assert.match(await batch.getByTestId('batch-task').innerText(), new RegExp(TASK.replace('.', '\\.')));
  await card(batch, 'bash').waitFor();
  assert.equal(await batch.getAttribute('data-status'), 'running', 'the calls are on the page before the batch ends');
  const done = page.getByTestId('chat-batches').locator(`[data-testid=batch-card][data-batch="${batchId}"][data-status=completed]`);
  await done.waitFor();
  // the event stream ends after `done`
  await page.getByTestId('chat-batches').locator(`[data-testid=batch-card][data-batch="${batchId}"][data-live=false]`).waitFor();

  // every call with the batch's decision and the package's reason label
  assert.equal(await card(done, 'list_dir').getAttribute('data-state'), 'ok');
  assert.equal(await card(done, 'read_file').getAttribute('data-decision'), 'worker-local');
  assert.match(await card(done, 'read_file').getByTestId('tool-card-output').innerText(), new RegExp(NOTES));
  const bash = card(done, 'bash');
  assert.equal(await bash.getAttribute('data-state'), 'refused');
  // the sub-agent was not offered bash (no shell in the session): the call port refuses it (L0), and the card
  // says why it was not offered — its route's reason — once (not again on its route)
  assert.equal(await bash.getAttribute('data-reason'), 'tool_not_offered');
  assert.equal((await bash.getByTestId('tool-card-denied').innerText()).trim(), `没有执行：${zh('reasons', 'shell_disabled_by_policy')}。`);
  assert.equal(await bash.locator('.reason-tag').count(), 0, 'the reason once on the card (not again on its route)');
  const policy = done.getByTestId('batch-policy');
  assert.deepEqual(JSON.parse(await policy.getAttribute('data-roots')), [workspace.path]);
  assert.equal(await policy.getAttribute('data-allow-shell'), 'false');
  assert.match(await policy.innerText(), new RegExp(`${workspace.path}.*Shell 不允许`, 's'));

  // the routes shown are the ones stored with the batch
  const info = await apiData('GET', `/admin/netaclaw/subagent/info?id=${batchId}`);
  // (calls of one answer run side by side: they are stored in the order they ended)
  const byName = (a, b) => a[0].localeCompare(b[0]);
  assert.deepEqual(info.calls.map((c) => [c.name, c.decision, c.reason]).sort(byName), [
    ['bash', 'denied', 'tool_not_offered'],
    ['list_dir', 'worker-local', null],
    ['read_file', 'worker-local', null],
  ]);
  await done.locator('.el-collapse-item__header').first().click();
  const rows = done.getByTestId('batch-routes').locator('.el-table__body-wrapper tr.batch-route-row');
  await rows.first().waitFor();
  assert.equal(await rows.count(), info.routes.length);
  for (const r of info.routes) {
    const row = done.getByTestId('batch-routes').locator(`.el-table__body-wrapper tr.batch-route-${r.name}`);
    assert.equal((await row.locator('[data-route]').innerText()).trim(), zh('routes', r.route), r.name);
    assert.equal((await row.locator('[data-status]').innerText()).trim(), zh('statuses', r.status), r.name);
    assert.equal((await row.locator('.blocked-reason').innerText()).trim(), r.blockedReason ? zh('reasons', r.blockedReason) : '', r.name);
  }
  assert.ok(
    info.routes.some((r) => r.name === 'write_file' && r.blockedReason === 'not_selected_for_subagent'),
    'a tool outside SUB_TOOLS',
  );
  assert.deepEqual(
    info.routes
      .filter((r) => SUB_TOOLS.includes(r.name) && r.route !== 'disabled')
      .map((r) => r.name)
      .sort(),
    ['list_dir', 'read_file'],
  );

  // the main agent's delegate call finished with the sub-agent's answer, and points at its batch
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'The sub-agent reported:' }).waitFor();
  assert.equal(await delegate.getAttribute('data-state'), 'ok');
  // the executor's own tool, said as such: no worker route, no proxy wording
  assert.equal(await delegate.locator('.decision').getAttribute('data-own'), 'true');
  assert.equal(await delegate.locator('.tool-card-route').count(), 0);
  assert.equal(await delegate.locator(`[data-batch="${batchId}"]`).count(), 1);
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  assert.match(await transcript(page).getByTestId('msg-assistant').last().innerText(), new RegExp(NOTES));
  assert.match(await done.getByTestId('batch-reply').innerText(), new RegExp(NOTES));

  // the README's picture of the chat page
  await page.getByTestId('chat-input').fill('');
  await screenshot(page, 'chat');

  // reloaded, the session shows its batch again (from the database)
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const again = await open(browser.context, `/agent/chat?agent=${agent.id}&session=${sessionId}`);
  const replay = again.getByTestId('chat-batches').locator(`[data-testid=batch-card][data-batch="${batchId}"][data-status=completed]`);
  await card(replay, 'bash').waitFor();
  assert.equal(await card(replay, 'bash').getAttribute('data-reason'), 'tool_not_offered');
  // its task and the sub-agent's reply, from the stored delegation call
  assert.match(await replay.getByTestId('batch-task').innerText(), new RegExp(TASK.replace('.', '\\.')));
  assert.match(await replay.getByTestId('batch-reply').innerText(), new RegExp(`which says: ${NOTES}`));
  assert.equal(await card(transcript(again), 'delegate_task').locator(`[data-batch="${batchId}"]`).count(), 1);
  assert.deepEqual(browser.errors, []);
});

test('cancel stops a turn, shown as cancelled (not as a failure); the session goes on', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('cancel'), toolsets: ['base'] });
  const page = await openChat(agent.id, workspace.path);
  await send(page, MESSAGES.slow);
  await page.getByTestId('chat-cancel').click();
  const cancelled = transcript(page).getByTestId('msg-cancelled');
  await cancelled.waitFor();
  assert.equal(await cancelled.getAttribute('data-code'), 'cancelled');
  assert.match(await cancelled.innerText(), /^已取消/);
  assert.match(await cancelled.getAttribute('class'), /el-alert--info/, 'an info notice, not an error');
  assert.equal(await transcript(page).getByTestId('msg-error').count(), 0);
  await page.getByTestId('chat-cancel').waitFor({ state: 'detached' });
  // the next message works, in the same session
  await send(page, MESSAGES.read);
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' }).waitFor();
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const stored = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.deepEqual(
    stored.messages.filter((m) => m.role === 'error').map((m) => m.name),
    ['cancelled'],
  );
  assert.deepEqual(browser.errors, []);
});

test('the message box counts to the backend limit; a long message is collapsed with 展开', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('long'), toolsets: ['base'] });
  const page = await openChat(agent.id, workspace.path);
  const input = page.getByTestId('chat-input');
  const count = page.getByTestId('chat-count');
  // over the limit (65,536 characters, the chat DTO's): said, counted, not sendable
  await input.fill('字'.repeat(70_000));
  await page.getByTestId('chat-too-long').waitFor();
  assert.equal(await count.getAttribute('data-over'), 'true');
  assert.match(await count.innerText(), /70,000 \/ 65,536/);
  assert.equal(await page.getByTestId('chat-send').isDisabled(), true);
  assert.match(await page.getByTestId('chat-too-long').innerText(), /^消息超过 65,536 个字符的上限/);

  // a long message within the limit: sent, shown collapsed, expanded on demand
  const long = Array.from({ length: 400 }, (_, i) => `line ${i + 1} of a long message`).join('\n');
  await input.fill(long);
  assert.equal(await count.getAttribute('data-over'), 'false');
  assert.match(await count.innerText(), new RegExp(`${long.length.toLocaleString('en-US')} / 65,536`));
  await page.getByTestId('chat-send').click();
  const mine = transcript(page).getByTestId('msg-user').last();
  await mine.waitFor();
  const text = mine.locator('.bubble-text');
  assert.equal(await text.getAttribute('data-collapsed'), 'true');
  assert.ok(!(await text.innerText()).includes('line 400 of'), 'the end is hidden');
  assert.match(await mine.getByTestId('msg-hidden').innerText(), /还有 [\d,]+ 个字符/);
  await mine.getByTestId('msg-expand').click();
  assert.equal(await text.getAttribute('data-collapsed'), 'false');
  assert.ok((await text.innerText()).includes('line 400 of'));
  // the bubble stays inside the transcript
  const [b, tr] = await Promise.all([mine.boundingBox(), transcript(page).boundingBox()]);
  assert.ok(b.x + b.width <= tr.x + tr.width + 1, 'inside the transcript');
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  assert.deepEqual(browser.errors, []);
});

test('a reload mid-answer: the turn goes on, the page shows what was streamed and then the rest; leaving asks only for unsent input', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('reload'), toolsets: ['base'] });
  let page = await openChat(agent.id, workspace.path);
  await send(page, MESSAGES.twoParts);
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'First, the notes.' }).waitFor();
  await card(transcript(page), 'read_file').and(page.locator('[data-state=ok]')).waitFor();
  assert.equal(await page.getByTestId('chat-answering').isVisible(), true, 'still answering');

  // nothing typed: the page goes without a question
  let asked = 0;
  page.on('dialog', (d) => {
    asked += 1;
    void d.dismiss();
  });
  await page.reload();
  await page.getByTestId('chat-transcript').getByTestId('msg-user').first().waitFor();
  // what was streamed before the reload, once, and the turn still running
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'First, the notes.' }).waitFor();
  await page.getByTestId('chat-answering').waitFor();
  assert.equal(await page.getByTestId('chat-cancel').isVisible(), true);
  // then the rest of the answer
  await transcript(page)
    .getByTestId('msg-assistant')
    .filter({ hasText: `Then: notes.txt says: ${NOTES}` })
    .waitFor();
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  assert.equal(await transcript(page).getByTestId('msg-user').count(), 1);
  assert.equal(await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'First, the notes.' }).count(), 1);
  assert.equal(await card(transcript(page), 'read_file').count(), 1);
  assert.equal(asked, 0);
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const stored = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.deepEqual(
    stored.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant'],
    'the turn ran to its end',
  );

  // a message typed but not sent: leaving asks (and staying keeps it)
  await page.getByTestId('chat-input').click();
  await page.getByTestId('chat-input').fill('not sent yet');
  const question = page.waitForEvent('dialog');
  const closing = page.close({ runBeforeUnload: true });
  const d = await question;
  assert.equal(d.type(), 'beforeunload');
  await closing;
  assert.equal(page.isClosed(), false, 'dismissed: the page stays');
  assert.equal(await page.getByTestId('chat-input').inputValue(), 'not sent yet');
  // a move to another page of the app asks in the page's language
  await page.getByTestId('menu-tools').click();
  const box = page.locator('.el-message-box');
  await box.waitFor();
  assert.match(await box.innerText(), /没发送的消息/);
  await box.locator('.el-button', { hasText: '留下' }).click();
  assert.match(page.url(), /#\/agent\/chat/);
  await page.getByTestId('chat-input').fill('');
  page = await open(browser.context, '/agent/tools');
  await page.getByTestId('tools-page').waitFor();
  assert.deepEqual(browser.errors, []);
});
