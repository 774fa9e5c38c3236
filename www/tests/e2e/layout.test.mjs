// Layout (issue item 1): the 工具配置 transfer is two titled, searchable columns with the move buttons
// between them — side by side where the card has room (1920 px), stacked where it has not (a 1280 px
// screen beside the preview: issue 40 item 14), zh-CN and en; on every page no element sticks out of
// its card, no column title or transfer title is cut, and the tables keep their name column fixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, checkPage, forFile, launch, open, uniqueName, settled } from './helpers.mjs';

const browser = forFile(launch);
const WIDTHS = [1280, 1440, 1920];

test('the transfer: two columns side by side, titled and searchable, buttons between; nothing cut at 1280–1920 px', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('layout'),
    toolsets: ['base', 'planning'],
    tools: { disabled: ['bash'] },
  });
  const page = await open(browser.context, `/agent/${agent.id}`);
  const transfer = page.getByTestId('agent-disabled-transfer');
  await transfer.getByTestId('transfer-item-bash').waitFor();
  for (const lang of ['zh-CN', 'en']) {
    await page.getByTestId(lang === 'en' ? 'locale-en' : 'locale-zh').click();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await settled(page);
      const at = `${lang} ${width}px`;
      const [left, right] = await Promise.all([0, 1].map((i) => transfer.locator('.el-transfer-panel').nth(i).boundingBox()));
      const buttons = await transfer.locator('.el-transfer__buttons').boundingBox();
      const box = await transfer.boundingBox();
      if (Math.abs(left.y - right.y) <= 2) {
        assert.ok(left.x + left.width <= buttons.x + 1 && buttons.x + buttons.width <= right.x + 1, `${at}: left | buttons | right`);
      } else {
        // a card too narrow for two columns (1280 px beside the preview): stacked, the buttons between
        assert.ok(left.y + left.height <= buttons.y + 1 && buttons.y + buttons.height <= right.y + 1, `${at}: top / buttons / bottom`);
      }
      if (width === 1920) assert.ok(Math.abs(left.y - right.y) <= 2, `${at}: side by side on a wide screen`);
      assert.ok(left.x >= box.x - 1 && right.x + right.width <= box.x + box.width + 1, `${at}: both columns inside the form`);
      assert.ok(left.width >= 150 && right.width >= 150, `${at}: columns of a usable width (${left.width}, ${right.width})`);
      // titled and searchable
      assert.equal(await transfer.locator('.el-transfer-panel__header').count(), 2);
      assert.equal(await transfer.locator('.el-transfer-panel__filter input').count(), 2);
      await checkPage(page, `agent page, ${at}`);
    }
  }
  // the right column holds bash, the left the rest
  assert.equal(await transfer.locator('.el-transfer-panel').nth(1).getByTestId('transfer-item-bash').count(), 1);
});

test('the tables keep a fixed name column and no page sticks out of its cards at 1280–1920 px', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('layout-t'), toolsets: ['base', 'planning'] });
  const pages = [
    ['/agent/tools', '[data-testid=tool-table] tr.tool-row-bash', ['tool-table']],
    ['/agent/list', '[data-testid=agent-table] tr.agent-row', []],
    [`/agent/${agent.id}`, '[data-testid=preview-profile] tr.profile-row', ['preview-profile', 'dropped-tools']],
    [`/agent/chat?agent=${agent.id}`, '[data-testid=chat-offered] [data-tool]', []],
    ['/agent/channels', '[data-testid=channel-table]', []],
  ];
  for (const [hash, ready, fixedTables] of pages) {
    for (const lang of ['zh-CN', 'en']) {
      const page = await open(browser.context, hash, { lang });
      await page.locator(ready).first().waitFor();
      if (/^\/agent\/\d+$/.test(hash)) {
        // the session routes table too: name a session
        await page.getByTestId('session-named').click();
        await page.getByTestId('session-cwd').fill('/home/user/project');
        await page.locator('[data-testid=session-routes] tr.session-route-row').first().waitFor();
        fixedTables.push('session-routes');
      }
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await settled(page);
        await checkPage(page, `${hash}, ${lang} ${width}px`);
        for (const id of new Set(fixedTables)) {
          const first = page.locator(`[data-testid=${id}] .el-table__header th`).first();
          assert.match(await first.getAttribute('class'), /el-table-fixed-column--left/, `${id}: the name column is fixed (${hash}, ${width}px)`);
        }
      }
    }
  }
  assert.deepEqual(browser.errors, []);
});
