// Skills (issue 40 item 12): the agent page picks an agent's skills among the installed ones (GET
// /admin/netaclaw/skill/list: run.mjs installs the demo's `code-review`, as scripts/demo.sh does), with
// what each says of itself; a name that is not installed cannot be typed in, and one the backend refuses
// (a skill gone between the list and the save) is said as a sentence naming it, in zh-CN and en; a bound
// skill whose folder is gone stays shown, marked as not installed. At 1280 and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, apiData, assertLocalizedErrors, checkPage, forFile, launch, open, uniqueName } from './helpers.mjs';

const browser = forFile(launch);

const tags = async (page) => (await page.getByTestId('agent-skills').locator('.el-tag').allInnerTexts()).map((s) => s.trim()).filter((s) => s !== '');

test('the API lists the installed skills and refuses any other name, naming it', async () => {
  const { list } = await apiData('GET', '/admin/netaclaw/skill/list');
  assert.deepEqual(list, [{ name: 'code-review', description: 'Review a change before it is merged.' }]);
  for (const name of ['code review', 'bad/../name', 'not-installed']) {
    const r = await api('POST', '/admin/netaclaw/agent/add', { name: uniqueName('skill'), skills: [name] });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'skill_not_installed');
    assert.equal(r.body.error.name, name);
  }
});

for (const [lang, width] of [
  ['zh-CN', 1280],
  ['en', 390],
]) {
  test(`${lang} ${width}px: the picker offers the installed skills only; a typed name that is not one is not taken`, async () => {
    const page = await open(browser.context, '/agent/new', { lang });
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('agent-edit-page').waitFor();
    const picker = page.getByTestId('agent-skills');
    await page.getByTestId('agent-skills-installed').waitFor();
    assert.match(await page.getByTestId('agent-skills-installed').innerText(), lang === 'en' ? /^1 installed skill;/ : /^已安装 1 个 skill/);
    await picker.click();
    const options = page.locator('.popper-agent-skills .el-select-dropdown__item');
    await options.first().waitFor();
    assert.deepEqual(await options.evaluateAll((els) => els.map((e) => e.dataset.skill)), ['code-review']);
    assert.match(await options.first().innerText(), /Review a change before it is merged\./, 'the option says what the skill is');
    for (const typed of ['code review', 'bad/../name']) {
      await page.keyboard.type(typed);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
    }
    assert.deepEqual(await tags(page), [], 'no name that is not installed was taken');
    await page.keyboard.type('code-rev');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    assert.deepEqual(await tags(page), ['code-review']);
    await checkPage(page, `agent page with a skill, ${lang} ${width}px`);
  });

  test(`${lang} ${width}px: a skill the backend refuses is named in a sentence; a bound skill no longer installed stays, marked`, async (t) => {
    const name = uniqueName('skill-page');
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width, height: 900 });
    // the list the page reads names a skill that is not installed (as when it is removed after the list was read)
    const LIST = '**/admin/netaclaw/skill/list';
    await page.route(LIST, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      body.data.list.push({ name: 'ghost-skill', description: 'gone before the save' });
      await route.fulfill({ response: res, json: body });
    });
    t.after(() => page.unroute(LIST));
    await open(browser.context, '/agent/new', { lang });
    await page.getByTestId('agent-edit-page').waitFor();
    await page.getByTestId('agent-skills-installed').waitFor();
    await page.locator('#tab-basics').click();
    await page.getByTestId('agent-name').fill(name);
    await page.locator('#tab-tools').click();
    await page.getByTestId('agent-skills').click();
    await page.locator('.popper-agent-skills .el-select-dropdown__item[data-skill=ghost-skill]').click();
    await page.keyboard.press('Escape');
    await page.getByTestId('agent-save').click();
    await page.locator('.el-message--error').first().waitFor();
    const texts = await assertLocalizedErrors(page, lang, `refused skill, ${lang}`);
    assert.ok(
      texts.some((t) => t.includes('ghost-skill') && (lang === 'en' ? /is not installed/.test(t) : /没有安装/.test(t))),
      JSON.stringify(texts),
    );
    const all = await apiData('POST', '/admin/netaclaw/agent/page', { name, size: 10 });
    assert.equal(all.pagination.total, 0, 'nothing was saved');
    await page.unroute(LIST);

    // a stored agent bound to a skill the list does not have: shown as such, kept, removable
    const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('skill-kept'), skills: ['code-review'] });
    await page.route(LIST, (route) => route.fulfill({ json: { data: { list: [] } } }));
    await open(browser.context, `/agent/${agent.id}`, { lang });
    await page.getByTestId('agent-skills-missing').waitFor();
    assert.match(await page.getByTestId('agent-skills-missing').innerText(), /code-review/);
    assert.match(await page.getByTestId('agent-skills-none').innerText(), lang === 'en' ? /No skill is installed/ : /还没有安装任何 skill/);
    assert.deepEqual(await tags(page), ['code-review']);
  });
}
