// Deleting agents and sessions (issue 40, item 15): each from its page, after a confirmation dialog that
// names what goes; a refusal — the agent is a crew member or runs, the session is answering — is a sentence
// in the page's language, and nothing is deleted. At 1280 px, the chat's delete also at 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiData, assertLocalizedErrors, forFile, launch, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { MESSAGES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);

/** The confirmation dialog Element Plus shows (ElMessageBox). */
const dialog = (page) => page.locator('.el-message-box');

/** The agents whose name holds `name`, by the list's filter. */
async function filterTo(page, name) {
  await page.getByTestId('agent-filter-name').fill(name);
  await page.getByTestId('agent-filter-name').press('Enter');
}

function agentRow(page, id) {
  return page.locator(`[data-testid=agent-table] tr.agent-row-${id}`);
}

/** A chat turn over REST, answered by the scripted model (a session of `agentId`). */
async function chatOnce(agentId, message) {
  const r = await api('POST', '/api/netaclaw/chat', { agentId, message });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.sessionId;
}

async function until(fn, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${what}: not within ${ms} ms`);
}

test('agents page: a delete asks first; a crew member is refused with the crew named (zh-CN, en); a running agent is refused; then it goes with its sessions', async () => {
  // one name in common: the list (20 a page, other tests' agents too) is filtered to these two
  const base = uniqueName('del');
  const member = await apiData('POST', '/admin/netaclaw/agent/add', { name: `${base}-member`, toolsets: ['base'] });
  const lead = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: `${base}-lead`,
    toolsets: ['base', 'delegation'],
    crewRole: 'master',
    crewMembers: [member.id],
  });
  const sessionId = await chatOnce(member.id, 'hello');
  const page = await open(browser.context, '/agent/list');
  await page.setViewportSize({ width: 1280, height: 800 });
  await filterTo(page, base);
  await agentRow(page, member.id).waitFor();

  // cancel: nothing happens
  await agentRow(page, member.id).getByTestId('agent-delete').click();
  await dialog(page).waitFor();
  assert.match(await dialog(page).innerText(), new RegExp(`删除 Agent「${member.name}」`));
  await dialog(page).getByRole('button', { name: '取消' }).click();
  await dialog(page).waitFor({ state: 'hidden' });
  assert.equal((await api('GET', `/admin/netaclaw/agent/info?id=${member.id}`)).status, 200);

  // a member of lead's crew: refused, the sentence names lead, nothing deleted
  await agentRow(page, member.id).getByTestId('agent-delete').click();
  await page.locator('.confirm-delete-agent').click();
  const refusal = page.getByTestId('agent-delete-error');
  await refusal.waitFor();
  assert.match(await refusal.innerText(), new RegExp(`「${lead.name}」的团队成员`));
  await assertLocalizedErrors(page.getByTestId('agents-page'), 'zh-CN', 'a crew member refused');
  assert.equal((await api('GET', `/admin/netaclaw/session/info?id=${sessionId}`)).status, 200);

  const en = await open(browser.context, '/agent/list', { lang: 'en' });
  await en.setViewportSize({ width: 1280, height: 800 });
  await filterTo(en, base);
  await agentRow(en, member.id).getByTestId('agent-delete').click();
  assert.match(await dialog(en).innerText(), new RegExp(`Delete the agent “${member.name}”\\?`));
  await en.locator('.confirm-delete-agent').click();
  await en.getByTestId('agent-delete-error').waitFor();
  assert.match(await en.getByTestId('agent-delete-error').innerText(), new RegExp(`member of the crew of “${lead.name}”`));
  await assertLocalizedErrors(en.getByTestId('agents-page'), 'en', 'a crew member refused (en)');

  // lead while one of its sessions answers (the scripted model takes its time): refused
  const abort = new AbortController();
  const running = fetch(`${process.env.E2E_BASE_URL}/api/netaclaw/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ agentId: lead.id, message: MESSAGES.slow }),
    signal: abort.signal,
  }).catch(() => null);
  await until(async () => (await apiData('GET', `/admin/netaclaw/session/page?agentId=${lead.id}`)).total > 0, 'the slow turn started');
  await agentRow(en, lead.id).getByTestId('agent-delete').click();
  await en.locator('.confirm-delete-agent').click();
  await en
    .getByTestId('agent-delete-error')
    .and(en.locator(`[data-agent="${lead.id}"]`))
    .waitFor();
  assert.match(await en.getByTestId('agent-delete-error').innerText(), /is running, so it cannot be deleted/);
  assert.equal((await api('GET', `/admin/netaclaw/agent/info?id=${lead.id}`)).status, 200);
  // the client goes away: the turn is cancelled, and the delete goes through
  abort.abort();
  await running;
  await until(async () => (await api('POST', '/admin/netaclaw/agent/delete', { id: lead.id })).status === 200, 'lead deleted once its turn ended');
  assert.equal((await apiData('GET', `/admin/netaclaw/session/page?agentId=${lead.id}`)).total, 0);

  // out of any crew now: the member goes from the page, with its session
  await page.reload();
  await filterTo(page, base);
  await agentRow(page, member.id).getByTestId('agent-delete').click();
  await page.locator('.confirm-delete-agent').click();
  await page.locator('.el-message--success').first().waitFor();
  await agentRow(page, member.id).waitFor({ state: 'detached' });
  assert.equal((await api('GET', `/admin/netaclaw/agent/info?id=${member.id}`)).status, 404);
  assert.equal((await api('GET', `/admin/netaclaw/session/info?id=${sessionId}`)).status, 404);
  assert.deepEqual(browser.errors, []);
});

/** Opens the chat page of a session at the given width. */
async function openSession(agentId, sessionId, width, lang) {
  const page = await open(browser.context, `/agent/chat?agent=${agentId}&session=${sessionId}`, { lang });
  await page.setViewportSize({ width, height: width < 768 ? 844 : 800 });
  await page.getByTestId('chat-transcript').getByTestId('msg-user').first().waitFor();
  return page;
}

for (const [width, lang] of [
  [1280, 'zh-CN'],
  [390, 'en'],
]) {
  test(`chat page at ${width} px (${lang}): a session is deleted after a confirmation; one that is answering is refused until its turn is cancelled`, async () => {
    const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('talker'), toolsets: ['base'] });
    const first = await chatOnce(agent.id, 'first session');
    const second = await chatOnce(agent.id, 'second session');
    const page = await openSession(agent.id, first, width, lang);
    const button = page.getByTestId('chat-session-delete');
    await button.waitFor();
    // reachable on a phone: inside the screen
    const box = await button.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= width, `the delete button lies within ${width} px: ${JSON.stringify(box)}`);

    await button.click();
    await dialog(page).waitFor();
    const d = await dialog(page).boundingBox();
    assert.ok(d.x >= 0 && d.x + d.width <= width, `the dialog fits ${width} px: ${JSON.stringify(d)}`);
    assert.match(await dialog(page).innerText(), lang === 'en' ? new RegExp(`Delete the session “#${first} `) : new RegExp(`删除会话「#${first} `));
    await page.locator('.confirm-delete-session').click();
    await page.locator('.el-message--success').first().waitFor();
    // the page starts a new session; the deleted one is gone from the list and the backend
    await page.waitForURL((u) => !u.href.includes(`session=${first}`));
    assert.equal(await page.getByTestId('chat-session-delete').count(), 0);
    await page.getByTestId('chat-session').click();
    const options = page.locator('.popper-chat-session .el-select-dropdown__item');
    await options.filter({ hasText: `#${second} ` }).waitFor();
    assert.equal(await options.filter({ hasText: `#${first} ` }).count(), 0);
    await page.keyboard.press('Escape');
    assert.equal((await api('GET', `/admin/netaclaw/session/info?id=${first}`)).status, 404);

    // the second session while it answers: refused, said in the page's language; cancelled, it goes
    const other = await openSession(agent.id, second, width, lang);
    await other.getByTestId('chat-input').fill(MESSAGES.slow);
    await other.getByTestId('chat-send').click();
    await other.getByTestId('chat-answering').waitFor();
    await other.getByTestId('chat-session-delete').click();
    await other.locator('.confirm-delete-session').click();
    const refusal = other.getByTestId('chat-session-delete-error');
    await refusal.waitFor();
    assert.match(
      await refusal.innerText(),
      lang === 'en' ? /answering a message, so it cannot be deleted: cancel the turn/ : /正在回答消息，不能删除：请先取消本轮/,
    );
    await assertLocalizedErrors(other.getByTestId('chat-page'), lang, 'a running session refused');
    assert.equal((await api('GET', `/admin/netaclaw/session/info?id=${second}`)).status, 200);
    await other.getByTestId('chat-cancel').click();
    await other.getByTestId('chat-answering').waitFor({ state: 'detached' });
    await other.getByTestId('chat-session-delete').click();
    await other.locator('.confirm-delete-session').click();
    await other.waitForURL((u) => !u.href.includes(`session=${second}`));
    assert.equal((await api('GET', `/admin/netaclaw/session/info?id=${second}`)).status, 404);
    assert.equal(await other.getByTestId('chat-session-delete-error').count(), 0);
    assert.deepEqual(browser.errors, []);
  });
}
