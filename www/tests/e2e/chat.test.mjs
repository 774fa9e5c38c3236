// 对话 · 子 Agent: a real chat against the scripted model (run.mjs points the backend's default channel
// at it; model-script.mjs is what it answers). The answer streams in over the WebSocket, each tool call
// is a card with the runtime's decision, the route and the package's reason label; a master delegates
// and its sub-agent batch shows up live with its stored routes and calls; a past session reloads; a
// turn can be cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { apiData, forFile, launch, notesWorkspace, open, screenshot, scriptedChannel, switchLocale, uniqueName } from './helpers.mjs';
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

async function send(page, text) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
}

/** Checks the three cards of the `read` scenario in `scope`. */
async function checkReadCards(scope) {
  const read = card(scope, 'read_file');
  await read.waitFor();
  assert.equal(await read.getAttribute('data-state'), 'ok');
  assert.equal(await read.getAttribute('data-decision'), 'worker-local');
  assert.equal((await read.locator('.decision').innerText()).trim(), zh('routes', 'worker-local'));
  assert.match(await read.getByTestId('tool-card-output').innerText(), new RegExp(NOTES));
  assert.match(await read.getByTestId('tool-card-args').innerText(), /"path": "notes.txt"/);
  // the route of the session's main agent
  assert.equal(await read.locator('.tool-card-route [data-route]').getAttribute('data-route'), 'worker-local');

  const write = card(scope, 'write_file');
  assert.equal(await write.getAttribute('data-state'), 'refused');
  assert.equal(await write.getAttribute('data-reason'), 'write_blocked_by_readonly_policy');
  assert.equal((await write.locator('.tool-card-head > .reason-tag').innerText()).trim(), zh('reasons', 'write_blocked_by_readonly_policy'));
  await write.getByTestId('tool-card-denied').waitFor();
  assert.equal(await write.locator('.tool-card-route [data-route]').getAttribute('data-route'), 'disabled');

  const mem = card(scope, 'memory_save');
  assert.equal(await mem.getAttribute('data-state'), 'refused');
  assert.equal(await mem.getAttribute('data-reason'), 'tool_not_offered');
  assert.equal((await mem.locator('.tool-card-head > .reason-tag').innerText()).trim(), zh('reasons', 'tool_not_offered'));
  await mem.getByTestId('tool-card-denied').waitFor();
}

test('a chat turn streams its answer; each tool call is a card with its decision, route and reason label; the session reloads', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('chat'), toolsets: ['base'] });
  const page = await openChat(agent.id, workspace.path);
  // the agent's channel: the default one, the scripted model
  assert.match(await page.getByTestId('chat-channel').innerText(), new RegExp(`${channel.channel.name}.*${process.env.E2E_MODEL}`, 's'));
  await page.getByTestId('chat-offered').locator('[data-tool=read_file]').waitFor();
  assert.equal(await page.getByTestId('chat-offered').locator('[data-tool=memory_save]').count(), 0);

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
      ['write_file', 'denied', 'write_blocked_by_readonly_policy'],
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
  await writeCard.locator('.tool-card-head > .reason-tag', { hasText: label('reasons', 'write_blocked_by_readonly_policy', 'en') }).waitFor();
  assert.equal((await card(transcript(again), 'read_file').locator('.decision').innerText()).trim(), label('routes', 'worker-local', 'en'));
  await switchLocale(again, 'zh-CN');
  // a second turn in the reloaded session goes on in it
  await send(again, 'thanks');
  await transcript(again).getByTestId('msg-assistant').filter({ hasText: 'You said: thanks' }).waitFor();
  const after = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.equal(after.messages.filter((m) => m.role === 'user').length, 2);
  assert.deepEqual(browser.errors, []);
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
  assert.equal((await bash.locator('.tool-card-head > .reason-tag').innerText()).trim(), zh('reasons', 'shell_disabled_by_policy'));
  assert.match(await done.getByTestId('batch-policy').innerText(), new RegExp(`roots=\\[${workspace.path}\\].*shell=false`, 's'));

  // the routes shown are the ones stored with the batch
  const info = await apiData('GET', `/admin/netaclaw/subagent/info?id=${batchId}`);
  assert.deepEqual(info.calls.map((c) => [c.name, c.decision, c.reason]), [
    ['list_dir', 'worker-local', null],
    ['read_file', 'worker-local', null],
    ['bash', 'denied', 'shell_disabled_by_policy'],
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
  assert.ok(info.routes.some((r) => r.name === 'write_file' && r.blockedReason === 'not_selected_for_subagent'), 'a tool outside SUB_TOOLS');
  assert.deepEqual(info.routes.filter((r) => SUB_TOOLS.includes(r.name) && r.route !== 'disabled').map((r) => r.name).sort(), ['list_dir', 'read_file']);

  // the main agent's delegate call finished with the sub-agent's answer, and points at its batch
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'The sub-agent reported:' }).waitFor();
  assert.equal(await delegate.getAttribute('data-state'), 'ok');
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
  assert.equal(await card(replay, 'bash').getAttribute('data-reason'), 'shell_disabled_by_policy');
  assert.deepEqual(browser.errors, []);
});

test('cancel stops a turn; the session goes on', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('cancel'), toolsets: ['base'] });
  const page = await openChat(agent.id, workspace.path);
  await send(page, MESSAGES.slow);
  await page.getByTestId('chat-cancel').click();
  const err = transcript(page).getByTestId('msg-error');
  await err.waitFor();
  assert.equal(await err.getAttribute('data-code'), 'cancelled');
  await page.getByTestId('chat-cancel').waitFor({ state: 'detached' });
  // the next message works, in the same session
  await send(page, MESSAGES.read);
  await transcript(page).getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' }).waitFor();
  const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
  const stored = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
  assert.deepEqual(stored.messages.filter((m) => m.role === 'error').map((m) => m.name), ['cancelled']);
  assert.deepEqual(browser.errors, []);
});
