// The pages on a phone and on a laptop screen (issue 40, items 2, 5 and 6): at 390 px the side menu is a
// drawer opened from the header, the chat takes the whole width with a usable working-directory field and
// message box, the login dialog fits and opens with the cursor in the token field; at 1280×800 the chat
// page is one scroll container whose message box stays in sight, and after a turn the answer and the box
// are both on screen; the side menu is reached with Tab and opened with Enter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName, settled } from './helpers.mjs';
import { MESSAGES, NOTES } from './model-script.mjs';

const scripted = forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const PHONE = { width: 390, height: 844 };

/** The box of `locator` as plain numbers. */
const box = async (locator) => {
  const b = await locator.boundingBox();
  assert.ok(b, 'the element is shown');
  return b;
};

/** Nothing of the page is wider than the screen (no sideways scrolling). */
async function noSidewaysScroll(page, what) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide on a ${width} px screen`);
}

test('390 px: the menu is a drawer, the chat takes the whole width, its fields and message box are usable', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('phone'), toolsets: ['base'] });
  for (const lang of ['zh-CN', 'en']) {
    const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
    await page.setViewportSize(PHONE);
    await page.getByTestId('chat-channel').waitFor();
    await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
    // no side menu beside the page: a button in the header opens it
    assert.equal(await page.locator('.app-aside').count(), 0, `${lang}: no side menu at 390 px`);
    const main = await box(page.locator('.app-main'));
    assert.ok(main.x <= 1 && main.width >= PHONE.width - 1, `${lang}: the page takes the whole width (${main.x}, ${main.width})`);
    const cwd = await box(page.getByTestId('chat-fields').getByTestId('field-cwd'));
    assert.ok(cwd.width >= 250, `${lang}: the working-directory field is ${cwd.width} px wide`);
    const input = page.getByTestId('chat-input');
    const inputBox = await box(input);
    assert.ok(inputBox.width >= 220, `${lang}: the message box is ${inputBox.width} px wide`);
    assert.ok(inputBox.x + inputBox.width <= PHONE.width, `${lang}: the message box ends on the screen`);
    for (const id of ['chat-agent', 'chat-session']) {
      const b = await box(page.getByTestId(id));
      assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width, `${lang}: ${id} fits the screen`);
    }
    await noSidewaysScroll(page, `chat, ${lang}`);
    // a working directory and a message can be typed: the text runs across the box, not down it
    await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
    await input.fill('a message typed on a phone');
    const lines = await input.evaluate((el) => Math.round(el.scrollHeight / parseFloat(getComputedStyle(el).lineHeight)));
    assert.ok(lines <= 2, `${lang}: the message takes ${lines} lines`);
    await input.fill('');

    // the drawer: every page of the app, by name; choosing one goes there and closes it
    await page.getByTestId('open-menu').click();
    const drawer = page.getByTestId('menu-drawer');
    await drawer.getByTestId('menu-tools').waitFor();
    assert.equal(await drawer.locator('[role=menuitem]').count(), 4);
    await drawer.getByTestId('menu-tools').click();
    await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
    await drawer.waitFor({ state: 'hidden' });
    assert.match(page.url(), /#\/agent\/tools/);
    await page.setViewportSize({ width: 1920, height: 1080 });
  }
  assert.deepEqual(browser.errors, []);
});

test('390 px: the login dialog fits the screen and opens with the cursor in the token field; a wrong token says so', async () => {
  const fresh = await launch();
  try {
    const page = await open(fresh.context, '/agent/tools', { login: false });
    await page.setViewportSize(PHONE);
    const dialog = page.locator('.el-dialog').filter({ has: page.getByTestId('token-input') });
    await dialog.waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'token-input');
    const b = await box(dialog);
    assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width, `the dialog fits: ${b.x} + ${b.width}`);
    const submit = await box(page.getByTestId('login-submit'));
    assert.ok(submit.x + submit.width <= PHONE.width, 'its button is on the screen');
    // typed right away (the field has the focus), a wrong token is called wrong, not an ended login
    await page.keyboard.type('not-the-token');
    await page.keyboard.press('Enter');
    const error = dialog.locator('.el-form-item__error');
    await error.waitFor();
    assert.equal((await error.innerText()).trim(), '管理令牌不正确：请检查后重新输入。');
    await noSidewaysScroll(page, 'login');
    assert.deepEqual(fresh.errors, []);
  } finally {
    await fresh.close();
  }
});

test('1280×800: one scroll container; after a turn the answer and the message box are on screen', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('fold'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId('chat-channel').waitFor();
  await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
  await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
  await page.getByTestId('chat-offered').locator('[data-tool=read_file]').waitFor();
  // the transcript has no scroll box of its own, nor has the main area: the document scrolls
  assert.equal(await page.locator('.app-main').evaluate((el) => getComputedStyle(el).overflowY), 'visible');
  assert.equal(await page.getByTestId('chat-transcript').evaluate((el) => getComputedStyle(el).overflowY), 'visible');
  for (let i = 0; i < 2; i += 1) {
    await page.getByTestId('chat-input').fill(MESSAGES.read);
    await page.getByTestId('chat-send').click();
    await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' }).nth(i).waitFor();
    await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
    await settled(page);
    const answer = await box(page.getByTestId('chat-transcript').getByTestId('msg-assistant').last());
    const input = await box(page.getByTestId('chat-input'));
    assert.ok(answer.y >= 0 && answer.y + answer.height <= input.y + 1, `turn ${i + 1}: the answer is on screen above the box (${answer.y}, ${answer.height})`);
    assert.ok(input.y >= 0 && input.y + input.height <= 800, `turn ${i + 1}: the message box is on screen (${input.y})`);
  }
  // the page (one scroll container) scrolls; the message box stays in sight wherever the transcript is
  const scrolls = await page.evaluate(() => document.scrollingElement.scrollHeight > window.innerHeight);
  assert.ok(scrolls, 'the transcript is longer than the screen');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByTestId('chat-transcript').getByTestId('msg-user').first().scrollIntoViewIfNeeded();
  const input = await box(page.getByTestId('chat-input'));
  assert.ok(input.y >= 0 && input.y + input.height <= 800, `the message box stays on screen while the transcript scrolls (${input.y})`);
  assert.deepEqual(browser.errors, []);
});

test('the side menu is reached with Tab and opened with Enter; the menu, the language switch and the token field are named', async () => {
  const page = await open(browser.context, '/agent/tools');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
  assert.equal(await page.locator('nav').first().getAttribute('aria-label'), '主菜单');
  assert.equal(await page.getByTestId('locale-switch').getAttribute('aria-label'), '界面语言');
  await page.evaluate(() => document.activeElement?.blur());
  let reached = null;
  for (let i = 0; i < 30 && reached !== 'menu-chat'; i += 1) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.dataset?.testid ?? null);
  }
  assert.equal(reached, 'menu-chat', 'the chat item of the menu is reached with Tab');
  await page.keyboard.press('Enter');
  await page.getByTestId('chat-page').waitFor();
  assert.match(page.url(), /#\/agent\/chat/);
  assert.deepEqual(browser.errors, []);
});

test('the channels page: the default channel that no agent names is used by “all agents that name none”, not a sentence starting with 以及', async () => {
  const page = await open(browser.context, '/agent/channels');
  const row = page.locator(`[data-testid=channel-table] .el-table__body-wrapper tr.channel-row-${scripted.channel.id}`);
  await row.waitFor();
  assert.equal((await row.locator('[data-role=default-users]').innerText()).trim(), '所有未指定渠道的 Agent');
  // an agent naming it: listed, then the others joined with 以及
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('names-channel'), modelChannelId: scripted.channel.id });
  await page.reload();
  await row.locator(`[data-agent="${agent.id}"]`).waitFor();
  assert.equal((await row.locator('[data-role=default-users]').innerText()).trim(), '以及所有未指定渠道的 Agent');
  await apiData('POST', '/admin/netaclaw/agent/update', { id: agent.id, name: agent.name, modelChannelId: null });
  assert.deepEqual(browser.errors, []);
});
