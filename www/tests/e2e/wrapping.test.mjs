// Layout, round 3 (issue 40 items 14 and 15), at 390, 1280 and 1920 px in zh-CN and en: a one-word tag
// (Unsupported) is never broken inside its word; a two-line label of the tool drawer grows its row instead
// of running into the heading below, and the drawer fits a phone; the transfer's names and its search
// placeholder are read whole (narrow cards stack its columns); the chat's 会话 label stays on the line of
// its select; a curly apostrophe is drawn narrow (a Latin font, not a CJK one); the MCP servers have a tab
// of their own, reached without scrolling past the tool table; no page scrolls sideways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, checkPage, forFile, launch, open, settled, uniqueName } from './helpers.mjs';

const browser = forFile(launch);
const WIDTHS = [390, 1280, 1920];
const LANGS = ['zh-CN', 'en'];

/** Fails unless the document is no wider than the window (nothing makes the page scroll sideways). */
async function noSideways(page, at) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client + 1, `${at}: the page scrolls sideways (${scroll} > ${client})`);
}

/** The texts of the elements of `selector` drawn on more than one line (a word broken, a label wrapped). */
function multiLine(selector) {
  return (page) =>
    page.evaluate((sel) => {
      const out = [];
      for (const el of document.querySelectorAll(sel)) {
        if (el.getBoundingClientRect().width === 0) continue;
        const range = document.createRange();
        range.selectNodeContents(el);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(el.textContent.trim());
      }
      return out;
    }, selector);
}

test('the tool page: one-word tags whole, the drawer fits and its labels do not run into the headings, MCP on its own tab', async () => {
  for (const lang of LANGS) {
    const page = await open(browser.context, '/agent/tools', { lang });
    for (const width of WIDTHS) {
      const at = `${lang} ${width}px`;
      await page.setViewportSize({ width, height: 900 });
      await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
      await settled(page);
      await noSideways(page, `tool page, ${at}`);
      // the prompt hint's tag is one word (Unsupported, Default, Overridden): drawn on one line
      assert.ok((await page.locator('[data-hint]').count()) > 0);
      assert.deepEqual(await multiLine('[data-hint] .el-tag__content')(page), [], `${at}: a hint tag broken inside its word`);
      await checkPage(page, `tool page, ${at}`);

      // the drawer: on screen; each label's box ends above the next row (none runs into a heading)
      await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().getByRole('button').last().click();
      await page.waitForFunction(() => {
        const d = document.querySelector('.el-drawer.tool-drawer');
        return d && Math.abs(d.getBoundingClientRect().right - window.innerWidth) < 1 && !d.closest('.el-drawer-fade-enter-active');
      });
      const overlaps = await page.evaluate(() => {
        const out = [];
        const d = document.querySelector('.el-drawer.tool-drawer');
        const r = d.getBoundingClientRect();
        if (r.left < -1 || r.right > window.innerWidth + 1) out.push(`drawer off screen [${r.left}, ${r.right}]`);
        for (const label of d.querySelectorAll('.el-form-item__label')) {
          const l = label.getBoundingClientRect();
          const item = label.closest('.el-form-item').getBoundingClientRect();
          if (l.bottom > item.bottom + 1) out.push(`"${label.textContent.trim()}" runs ${Math.round(l.bottom - item.bottom)} px below its row`);
          const range = document.createRange();
          range.selectNodeContents(label);
          const text = [...range.getClientRects()].filter((x) => x.width > 0);
          if (text.some((x) => x.bottom > item.bottom + 1)) out.push(`the text of "${label.textContent.trim()}" runs below its row`);
        }
        return out;
      });
      assert.deepEqual(overlaps, [], `tool drawer, ${at}`);
      await page.keyboard.press('Escape');
      await page.locator('.el-drawer.tool-drawer').waitFor({ state: 'hidden' });

      // the MCP tab: its section starts within the first screen, no scrolling
      await page.locator('#tab-mcp').click();
      const section = page.getByTestId('mcp-section');
      await section.waitFor();
      const box = await section.boundingBox();
      assert.ok(box.y < 900 - 100, `${at}: the MCP section starts on the first screen (y ${box.y})`);
      assert.match(page.url(), /tab=mcp/);
      await noSideways(page, `MCP tab, ${at}`);
      await checkPage(page, `MCP tab, ${at}`);
      await page.locator('#tab-tools').click();
    }
    // the MCP tab is kept in the address: a reload opens it
    await page.locator('#tab-mcp').click();
    await page.reload();
    await page.getByTestId('mcp-section').waitFor();
    assert.equal(await page.locator('[data-testid=tool-table]').isVisible(), false);
  }
  assert.deepEqual(browser.errors, []);
});

test('the transfer: every tool name and the search placeholder read whole, side by side when wide, stacked when narrow', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('wrap'),
    toolsets: ['base', 'planning', 'memory', 'skills', 'delegation'],
  });
  for (const lang of LANGS) {
    const page = await open(browser.context, `/agent/${agent.id}`, { lang });
    const transfer = page.getByTestId('agent-disabled-transfer');
    await transfer.getByTestId('transfer-item-delegate_parallel').waitFor();
    for (const width of WIDTHS) {
      const at = `${lang} ${width}px`;
      await page.setViewportSize({ width, height: 900 });
      await settled(page);
      await noSideways(page, `agent page, ${at}`);
      const found = await transfer.evaluate((t) => {
        const out = [];
        for (const name of t.querySelectorAll('[data-testid^=transfer-item-]')) {
          const label = name.closest('.el-checkbox__label');
          const l = label.getBoundingClientRect();
          const n = name.getBoundingClientRect();
          if (n.right > l.right + 1) out.push(`name cut: ${name.textContent}`);
        }
        for (const input of t.querySelectorAll('.el-transfer-panel__filter input')) {
          const c = document.createElement('canvas').getContext('2d');
          const cs = getComputedStyle(input);
          c.font = `${cs.fontSize} ${cs.fontFamily}`;
          const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
          if (c.measureText(input.placeholder).width > room + 1) out.push(`placeholder cut: ${input.placeholder}`);
        }
        return out;
      });
      assert.deepEqual(found, [], at);
      const [top, bottom] = await Promise.all([0, 1].map((i) => transfer.locator('.el-transfer-panel').nth(i).boundingBox()));
      const sideBySide = Math.abs(top.y - bottom.y) <= 2;
      if (!sideBySide) assert.ok(bottom.y >= top.y + top.height - 1, `${at}: stacked columns do not overlap`);
      if (width === 1920) assert.ok(sideBySide, `${at}: side by side on a wide screen`);
      if (width === 390) assert.ok(!sideBySide, `${at}: stacked on a phone`);
      await checkPage(page, `agent page, ${at}`);
    }
  }
});

test('the chat bar: each label on the line of its select; a curly apostrophe is drawn narrow', async () => {
  for (const lang of LANGS) {
    const page = await open(browser.context, '/agent/chat', { lang });
    await page.getByTestId('chat-session').waitFor();
    for (const width of WIDTHS) {
      const at = `${lang} ${width}px`;
      await page.setViewportSize({ width, height: 900 });
      await settled(page);
      const label = await page.getByTestId('chat-session-label').boundingBox();
      const select = await page.getByTestId('chat-session').boundingBox();
      const mid = label.y + label.height / 2;
      assert.ok(mid >= select.y && mid <= select.y + select.height, `${at}: 会话 beside its select (${JSON.stringify(label)} vs ${JSON.stringify(select)})`);
      assert.ok(label.x + label.width <= select.x + 1 && select.x - (label.x + label.width) <= 16, `${at}: the label right before its select`);
      assert.deepEqual(await multiLine('[data-testid=chat-session-label]')(page), [], `${at}: the label on one line`);
      await noSideways(page, `chat, ${at}`);
    }
    // ’ in the page's font: narrow (a CJK font draws it a full em wide, a gap inside "channel’s")
    const ratio = await page.evaluate(() => {
      const s = document.createElement('span');
      s.textContent = '’';
      document.querySelector('[data-testid=chat-page]').appendChild(s);
      const r = s.getBoundingClientRect().width / parseFloat(getComputedStyle(s).fontSize);
      s.remove();
      return r;
    });
    assert.ok(ratio < 0.45, `${lang}: ’ is ${ratio.toFixed(2)} em wide`);
  }
});
