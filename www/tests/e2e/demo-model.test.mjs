// The demonstration model (js/backend/src/agent/demo-model.ts): the e2e backend runs, like the demo, with
// NETACLAW_DEMO_MODEL=1 and no model channel outside the tests that add one. The chat header says the
// demonstration model answers (and how to configure a real one); its suggested prompts lead, through the
// real runtime, to an allowed read of the session folder's file and to a denied write with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { apiData, forFile, launch, notesWorkspace, open } from './helpers.mjs';

const NOTES = `demo tour notes ${Date.now()}`;
const MASTER = '示例 · Crew master（委派）';
const REVIEWER = '示例 · 审阅员（Crew 成员）';

const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const card = (page, tool) => page.getByTestId('chat-transcript').locator(`[data-testid=tool-card][data-tool=${tool}]`);

async function seeded(name) {
  const agents = (await apiData('POST', '/admin/netaclaw/agent/page', { size: 100 })).list;
  const agent = agents.find((a) => a.name === name);
  assert.ok(agent, `the demo's agent ${name} is seeded`);
  return agent;
}

/** Opens the chat with an agent in `lang`, a new session in the workspace. */
async function openTour(agent, lang) {
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
  await page.getByTestId('chat-channel').waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await page.getByTestId('chat-offered').locator('[data-tool=read_file]').waitFor();
  return page;
}

test('without a model channel the chat is labelled as the demonstration model; its prompts lead to an allowed read and a denied write', async () => {
  assert.deepEqual((await apiData('POST', '/admin/netaclaw/channel/page', { size: 100 })).list, [], 'no model channel');
  const master = await seeded(MASTER);

  // zh-CN: the label, and on hover how to configure a real model
  const page = await openTour(master, 'zh-CN');
  const mark = page.getByTestId('chat-demo-model');
  await mark.waitFor();
  assert.equal((await mark.innerText()).trim(), '演示模型');
  assert.equal(await page.getByTestId('chat-channel').getAttribute('data-channel'), 'demo');
  assert.equal(await page.getByTestId('chat-no-channel').count(), 0, 'no "cannot chat" alert');
  await mark.hover();
  const tip = page.locator('.popper-demo-model');
  await tip.waitFor();
  assert.match(await tip.innerText(), /模型渠道.*NETACLAW_MODEL_BASE_URL/s);

  // what was typed stays when a suggested prompt is sent
  await page.getByTestId('chat-input').fill('my draft');
  await page.locator('[data-testid=demo-prompt][data-step=read]').click();
  const read = card(page, 'read_file');
  await read.waitFor();
  assert.equal(await read.getAttribute('data-state'), 'ok');
  assert.match(await read.getByTestId('tool-card-output').innerText(), new RegExp(NOTES));
  await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
  const answer = page.getByTestId('msg-assistant').last();
  assert.match(await answer.innerText(), /策略允许了 `?read_file/);
  assert.match(await answer.innerText(), new RegExp(NOTES));
  assert.equal(await page.getByTestId('chat-input').inputValue(), 'my draft');

  // en, the read-only reviewer: the write is denied, its card says why
  const reviewer = await seeded(REVIEWER);
  const en = await openTour(reviewer, 'en');
  assert.equal((await en.getByTestId('chat-demo-model').innerText()).trim(), 'Demonstration model');
  await en.locator('[data-testid=demo-prompt][data-step=write]').click();
  const write = card(en, 'write_file');
  await write.waitFor();
  assert.equal(await write.getAttribute('data-state'), 'refused');
  const reason = await write.getAttribute('data-reason');
  assert.ok(reason, 'the denial has its reason');
  await write.getByTestId('tool-card-denied').waitFor();
  // the card's sentence is the reason that decided: the route's (why the read-only session does not offer it)
  const shown = await write.getByTestId('tool-card-denied').getAttribute('data-code');
  assert.ok(shown, 'the card names the deciding reason');
  assert.equal((await write.getByTestId('tool-card-denied').innerText()).trim(), `Did not run: ${label('reasons', shown, 'en')}.`);
  assert.ok(!(await write.innerText()).includes(shown), 'never the code itself');
  await en.getByTestId('chat-answering').waitFor({ state: 'detached' });
  // the reply names the denial by the package's sentence, never by its code
  const reply = await en.getByTestId('msg-assistant').last().innerText();
  assert.ok(reply.includes(`this session does not offer it, because: ${label('reasons', shown, 'en')}.`), reply);
  assert.ok(!reply.includes(reason) && !reply.includes(shown), reply);
  assert.deepEqual(browser.errors, []);
});

test('the tour shows an approval card: the crew master asks before curl; denied, the card and the reply name the denial by its sentence', async () => {
  const master = await seeded(MASTER);
  for (const lang of ['zh-CN', 'en']) {
    const page = await openTour(master, lang);
    await page.getByTestId('chat-fields').getByTestId('field-shell').click();
    await page.getByTestId('chat-offered').locator('[data-tool=bash]').waitFor();
    await page.locator('[data-testid=demo-prompt][data-step=approval]').click();
    const approval = page.getByTestId('chat-approval');
    await approval.waitFor();
    assert.match(await approval.getByTestId('chat-approval-subject').innerText(), /^curl -sI https:\/\/example\.com/);
    const asking = card(page, 'bash');
    assert.equal(await asking.getAttribute('data-state'), 'awaiting');
    await approval.getByTestId('chat-approval-deny').click();
    await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
    assert.equal(await approval.count(), 0, 'the approval is answered');
    const denied = card(page, 'bash').last();
    assert.equal(await denied.getAttribute('data-state'), 'refused');
    const reason = await denied.getAttribute('data-reason');
    assert.ok(reason, 'the denial has its reason');
    const sentence = label('reasons', reason, lang);
    assert.ok(sentence && sentence !== reason, `the package has a sentence for ${reason}`);
    assert.ok((await denied.getByTestId('tool-card-denied').innerText()).includes(sentence));
    const reply = await page.getByTestId('msg-assistant').last().innerText();
    assert.ok(reply.includes(sentence.replace(/[。.]$/, '')), `${lang}: the reply names the denial by its sentence: ${reply}`);
    assert.ok(!reply.includes(reason), `${lang}: the reply names no code: ${reply}`);
    assert.match(reply, lang === 'en' ? /The policy denied `?bash`?/ : /策略拒绝了 `?bash`?/);
  }
  assert.deepEqual(browser.errors, []);
});
