// Chinese on zh-CN pages (issue 40 item 13): the prompt preview's layer titles, a builtin tool's
// description, and the backend's fixed tool answers ("Escalation #1 recorded…") are read in Chinese; the
// English the model read stays one click away (docs/runtime.md, "What the model reads, what a user
// reads"). The en pages show the English. At 1280 and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, checkPage, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { MESSAGES, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

const TITLES = { 'zh-CN': ['身份', '会话', 'Skills', '工具使用指引'], en: ['Identity', 'Session', 'Skills', 'Tool guidance'] };

for (const [lang, width] of [
  ['zh-CN', 1280],
  ['zh-CN', 390],
  ['en', 1280],
]) {
  test(`${lang} ${width}px: the prompt layers' titles and a builtin tool's description are in the page's language`, async () => {
    const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('words'), systemPrompt: 'Be brief.', toolsets: ['base', 'planning'] });
    const page = await open(browser.context, `/agent/${agent.id}`, { lang });
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('backend-compare-btn').click();
    await page.getByTestId('backend-compare').waitFor();
    const titles = (await page.getByTestId('prompt-layer-title').allInnerTexts()).map((s) => s.trim());
    assert.deepEqual(titles, TITLES[lang]);
    const note = await page.getByTestId('layers-model-reads').innerText();
    assert.match(note, lang === 'en' ? /the model receives/ : /模型收到的原文/);

    const tools = await open(browser.context, '/agent/tools', { lang });
    await tools.setViewportSize({ width, height: 900 });
    const row = tools.locator('[data-testid=tool-table] tr.tool-row-escalate').first();
    await row.waitFor();
    await row.getByRole('button').last().click();
    const drawer = tools.getByTestId('tool-drawer');
    await drawer.getByTestId('drawer-field-description').waitFor();
    assert.equal(
      await drawer.getByTestId('drawer-field-description').inputValue(),
      'Hand the conversation over to a human operator.',
      'the stored description stays the English the model reads',
    );
    if (lang === 'zh-CN') {
      assert.match(await drawer.getByTestId('drawer-description-zh').innerText(), /^中文说明：把对话交给人工处理（运营人员）。/);
      // an administrator's own description is shown as it is, with no Chinese text over it
      await drawer.getByTestId('drawer-field-description').fill('Ask a person.');
      assert.equal(await drawer.getByTestId('drawer-description-zh').count(), 0);
    } else {
      assert.equal(await drawer.getByTestId('drawer-description-zh').count(), 0);
    }
    // the drawer, once slid in, lies within the screen (a phone's included)
    await tools.waitForFunction(() => {
      const d = document.querySelector('.el-drawer.tool-drawer');
      return d && Math.abs(d.getBoundingClientRect().right - window.innerWidth) < 1 && !d.closest('.el-drawer-fade-enter-active');
    });
    const panel = await drawer.boundingBox();
    assert.ok(panel.x >= -1 && panel.x + panel.width <= width + 1, `${lang} ${width}px: the drawer is on screen (${JSON.stringify(panel)})`);
    await tools.keyboard.press('Escape');
  });
}

test('zh-CN: the escalation tool answer reads in Chinese on its card, the English the model read one click away; en shows the English', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('words-esc'), toolsets: ['base', 'planning'] });
  for (const lang of ['zh-CN', 'en']) {
    const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
    await page.getByTestId('chat-channel').waitFor();
    await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
    await page.getByTestId('chat-input').fill(MESSAGES.panels);
    await page.getByTestId('chat-send').click();
    const card = page.getByTestId('chat-transcript').locator('[data-testid=tool-card][data-tool=escalate]');
    await card.waitFor();
    await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
    if (lang === 'zh-CN') {
      const said = await card.getByTestId('tool-card-output-said').innerText();
      assert.match(said, /^已记录升级 #\d+：运营人员会看到并答复。$/);
      const original = card.getByTestId('tool-card-output');
      assert.equal(await original.isVisible(), false, 'the English is folded away');
      await card.locator('details.tool-card-original summary').click();
      assert.match(await original.innerText(), /^Escalation #\d+ recorded: an operator will see it and answer\.$/);
      // the card's own words are Chinese: no English sentence outside the folded original and the arguments
      const words = await card.evaluate((el) => {
        const c = el.cloneNode(true);
        for (const x of c.querySelectorAll('details, [data-testid=tool-card-args], .mono')) x.remove();
        return c.textContent;
      });
      assert.doesNotMatch(words, /[A-Za-z]+(?:[ ,:;'’-]+[A-Za-z]+){3,}/, `an English sentence on the zh-CN card: ${words}`);
    } else {
      assert.equal(await card.getByTestId('tool-card-output-said').count(), 0);
      assert.match(await card.getByTestId('tool-card-output').innerText(), /^Escalation #\d+ recorded/);
    }
    await checkPage(page, `chat with an escalation, ${lang}`);
  }
});
