// A login that ends while a page is open (issue 40, item 3): the header says so, the login box opens in
// place with the page as it was, and once the user logged in again what they were doing goes again — a
// chat message (its text never lost), an agent's save (the form as typed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOKEN, apiData, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { MESSAGES, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

/** Ends the page's login on the backend behind its back (as an expiry, or a logout in another browser, does). */
async function endLogin(page) {
  const status = await page.evaluate(async () => {
    const r = await fetch('/auth/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Netaclaw-Request-Key': localStorage.getItem('netaclaw.requestKey') ?? '' },
      body: '{}',
    });
    return r.status;
  });
  assert.equal(status, 200);
}

/** The login box is open over the page as it was; logging in there closes it. */
async function loginAgain(page) {
  const dialog = page.locator('.el-dialog').filter({ has: page.getByTestId('token-input') });
  await dialog.waitFor();
  await dialog.getByTestId('login-kept').waitFor();
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'out', 'the header says the login ended');
  assert.equal(await page.getByTestId('login-needed').count(), 0, 'the page is still there');
  // the cursor is in the token field
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'token-input');
  await page.keyboard.type(TOKEN);
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.getByTestId('login-state').getAttribute('data-state'), 'in');
}

test('chat: a message sent after the login ended opens the login box, keeps its text, and goes once logged in again', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('expiry'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.getByTestId('chat-channel').waitFor();
  await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await page.getByTestId('chat-offered').locator('[data-tool=read_file]').waitFor();

  await endLogin(page);
  await page.getByTestId('chat-input').fill(MESSAGES.read);
  await page.getByTestId('chat-send').click();
  await page.getByTestId('login-kept').waitFor();
  assert.equal(await page.getByTestId('chat-input').inputValue(), MESSAGES.read, 'the typed message is kept');
  assert.equal(await page.getByTestId('chat-send-error').count(), 0, 'no connection sentence');
  await loginAgain(page);
  // the message went: its answer streams in, once; the box is empty
  await page
    .getByTestId('chat-transcript')
    .getByTestId('msg-assistant')
    .filter({ hasText: 'notes.txt says:' })
    .waitFor({ timeout: 15_000 })
    .catch(async (e) => {
      throw new Error(`${e.message}\n${await page.getByTestId('chat-page').innerText()}`);
    });
  assert.equal(await page.getByTestId('chat-transcript').getByTestId('msg-user').count(), 1);
  assert.equal(await page.getByTestId('chat-input').inputValue(), '');
  assert.equal((await apiData('GET', `/admin/netaclaw/session/page?agentId=${agent.id}`)).total, 1);
  assert.deepEqual(browser.errors, []);
});

test('agent page: a save after the login ended is made once logged in again, with what was typed', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('expiry-edit'), systemPrompt: 'before', toolsets: ['base'] });
  const page = await open(browser.context, `/agent/${agent.id}`);
  await page.getByTestId('injected-tools').locator('[data-tool=read_file]').waitFor();
  await page.getByRole('tab', { name: /基本信息/ }).click();
  await page.getByTestId('agent-system-prompt').fill('typed before the login ended');

  await endLogin(page);
  await page.getByTestId('agent-save').click();
  await loginAgain(page);
  await page.locator('.el-message--success').first().waitFor();
  assert.equal(await page.getByTestId('agent-system-prompt').inputValue(), 'typed before the login ended');
  const stored = await apiData('GET', `/admin/netaclaw/agent/info?id=${agent.id}`);
  assert.equal(stored.systemPrompt, 'typed before the login ended');
  assert.equal(stored.version, agent.version + 1);
  assert.deepEqual(browser.errors, []);
});
