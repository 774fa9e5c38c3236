// Approvals (docs/runtime.md "Approvals"): a call the agent's rule asks about stops the turn and the page
// shows the approval card at the end of the transcript — the exact command, the rule that asked with its
// level, three answers. Each answer, in zh-CN and in en, resumes the turn over the WebSocket: allow once
// runs the command (its file is written), allow for this session runs it and adds the session's approval,
// deny runs nothing (no file) and the model reads the denial. A second answer is refused as a sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { apiData, assertLocalizedErrors, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { APPROVAL_RULE, MESSAGES, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const BUTTON = { once: 'chat-approval-once', session: 'chat-approval-session', deny: 'chat-approval-deny' };
const LEVEL = { 'zh-CN': 'Agent', en: 'agent' };
const DENIED = { 'zh-CN': /拒绝/, en: /Deny/ };

for (const lang of ['zh-CN', 'en']) {
  for (const answer of ['once', 'session', 'deny']) {
    test(`${lang}: the approval card, answered "${answer}", resumes the turn`, async () => {
      rmSync(join(workspace.path, 'approved.txt'), { force: true });
      const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('approver'), toolsets: ['base'], rules: { ask: [APPROVAL_RULE] } });
      const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
      await page.getByTestId('chat-channel').waitFor();
      const form = page.getByTestId('chat-fields');
      await form.getByTestId('field-cwd').fill(workspace.path);
      await form.getByTestId('field-shell').click();
      await form.getByTestId('field-write').click();
      await page.getByTestId('chat-input').fill(MESSAGES.approval);
      await page.getByTestId('chat-send').click();
      const card = page.getByTestId('chat-approval');
      await card.waitFor();
      assert.equal(await card.getByTestId('chat-approval-subject').innerText(), 'echo asked e2e > approved.txt');
      assert.equal(await card.getByTestId('chat-approval-matched').innerText(), 'echo asked e2e');
      const asking = page.getByTestId('tool-card').filter({ hasText: 'approved.txt' });
      assert.equal(await asking.getAttribute('data-state'), 'awaiting');
      const rule = await card.getByTestId('chat-approval-rule').innerText();
      assert.ok(rule.includes(APPROVAL_RULE) && rule.includes(LEVEL[lang]), rule);
      assert.match(await card.getByTestId('chat-approval-deny').innerText(), DENIED[lang]);
      assert.equal(existsSync(join(workspace.path, 'approved.txt')), false, 'nothing ran before the answer');
      await page.waitForURL(/session=\d+/);
      const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));

      // a reload keeps the card (the session's pendingApprovals)
      await page.reload();
      await card.waitFor();

      await card.getByTestId(BUTTON[answer]).click();
      const reply = page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'The command answered:' });
      await reply.waitFor();
      await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
      assert.equal(await card.count(), 0, 'the approval is answered');
      const info = await apiData('GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(info.pendingApprovals, []);
      const file = join(workspace.path, 'approved.txt');
      if (answer === 'deny') {
        assert.equal(existsSync(file), false, 'a denied command does not run');
        assert.match(await reply.innerText(), /denied/);
      } else {
        assert.equal(readFileSync(file, 'utf8'), 'asked e2e\n');
      }
      assert.deepEqual(info.approvals ?? null, answer === 'session' ? ['bash(echo asked e2e)'] : null);

      await page.close();
    });
  }
}

test('zh-CN: an approval answered elsewhere shows a sentence on the card', async () => {
  rmSync(join(workspace.path, 'approved.txt'), { force: true });
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('approver'), toolsets: ['base'], rules: { ask: [APPROVAL_RULE] } });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang: 'zh-CN' });
  await page.getByTestId('chat-channel').waitFor();
  const form = page.getByTestId('chat-fields');
  await form.getByTestId('field-cwd').fill(workspace.path);
  await form.getByTestId('field-shell').click();
  await form.getByTestId('field-write').click();
  await page.getByTestId('chat-input').fill(MESSAGES.approval);
  await page.getByTestId('chat-send').click();
  const card = page.getByTestId('chat-approval');
  await card.waitFor();
  const id = Number(await card.getAttribute('data-approval'));
  // answered by an API client first
  await apiData('POST', '/api/netaclaw/approval/answer', { id, answer: 'deny' });
  await card.getByTestId('chat-approval-once').click();
  await card.getByTestId('chat-approval-error').waitFor();
  const texts = await assertLocalizedErrors(card, 'zh-CN', 'an approval answered already');
  assert.ok(
    texts.some((t) => /已经有人回答/.test(t)),
    texts.join(' | '),
  );
  assert.equal(existsSync(join(workspace.path, 'approved.txt')), false);
  await page.close();
});
