// Tables that fit (issue 25): at 1280, 1440 and 1920 px the Tool 管理 table and the session-routes table
// of the agent page scroll not sideways and show every column title and every tag whole, the name
// column fixed; a table of one row has no scroll box at all (neither way), whatever the width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, countSettles, forFile, launch, open, scriptedChannel, settled, uniqueName } from './helpers.mjs';

const browser = forFile(launch);
const WIDTHS = [1280, 1440, 1920];

/**
 * What makes the table `testid` scroll or cut (runs in the page): its scroll boxes wider (`x`) or taller
 * (`y`, when asked) than they show, and header cells not wholly inside the table or cut in themselves.
 */
function overflow([testid, y]) {
  const table = document.querySelector(`[data-testid="${testid}"]`);
  if (!table) return [`no table ${testid}`];
  const out = [];
  const box = table.getBoundingClientRect();
  if (table.classList.contains('el-table--scrollable-x')) out.push('scrollable-x');
  if (y && table.classList.contains('el-table--scrollable-y')) out.push('scrollable-y');
  for (const w of table.querySelectorAll('.el-scrollbar__wrap')) {
    if (w.scrollWidth > w.clientWidth) out.push(`sideways: ${w.scrollWidth} > ${w.clientWidth}`);
    if (y && w.scrollHeight > w.clientHeight) out.push(`up and down: ${w.scrollHeight} > ${w.clientHeight}`);
  }
  for (const th of table.querySelectorAll('.el-table__header-wrapper th')) {
    const r = th.getBoundingClientRect();
    if (r.width === 0) continue;
    const text = th.textContent.trim();
    if (r.left < box.left - 1 || r.right > box.right + 1)
      out.push(`column "${text}" outside [${Math.round(r.left)}, ${Math.round(r.right)}] vs [${Math.round(box.left)}, ${Math.round(box.right)}]`);
    const cell = th.querySelector('.cell');
    if (cell && (cell.scrollWidth > cell.clientWidth + 1 || cell.scrollHeight > cell.clientHeight + 1)) out.push(`column "${text}" cut`);
  }
  // no tag (a reason, a profile tag) runs past its cell
  for (const tag of table.querySelectorAll('.el-table__body-wrapper td .el-tag')) {
    const cell = tag.closest('td').getBoundingClientRect();
    const r = tag.getBoundingClientRect();
    if (r.width > 0 && (r.right > cell.right + 1 || tag.scrollWidth > tag.clientWidth + 1)) out.push(`tag "${tag.textContent.trim()}" cut`);
  }
  return out;
}

async function fits(page, testid, what, { y = false } = {}) {
  assert.deepEqual(await page.evaluate(overflow, [testid, y]), [], `${testid}: ${what}`);
}

async function atWidths(page, each) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await settled(page);
    await each(width);
  }
}

test('Tool 管理: no sideways scrolling and every column title whole at 1280–1920 px, the name column fixed', async () => {
  for (const lang of ['zh-CN', 'en']) {
    const page = await open(browser.context, '/agent/tools', { lang });
    await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
    await atWidths(page, async (width) => {
      await fits(page, 'tool-table', `${lang} ${width}px`);
      const first = page.locator('[data-testid=tool-table] .el-table__header th').first();
      assert.match(await first.getAttribute('class'), /el-table-fixed-column--left/, `the name column is fixed (${lang} ${width}px)`);
      // nothing left out: the runtime profile of each row is there (kind, routing hint, execution mode)
      const bash = page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-bash');
      assert.equal(await bash.locator('[data-kind]').count(), 1);
      assert.equal(await bash.locator('[data-worker-hint]').count(), 1);
      assert.equal(await bash.locator('[data-execution-mode]').count(), 1);
    });
  }
  assert.deepEqual(browser.errors, []);
});

test('the agent page: the session-routes and profile tables scroll not sideways at 1280–1920 px', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('tables'), toolsets: ['base', 'planning'] });
  for (const lang of ['zh-CN', 'en']) {
    const page = await open(browser.context, `/agent/${agent.id}`, { lang });
    await page.locator('[data-testid=preview-profile] tr.profile-row').first().waitFor();
    await page.getByTestId('session-named').click();
    await page.getByTestId('session-cwd').fill('/home/user/project');
    await page.locator('[data-testid=session-routes] tr.session-route-row').first().waitFor();
    await atWidths(page, async (width) => {
      for (const id of ['session-routes', 'preview-profile', 'dropped-tools']) {
        await fits(page, id, `${lang} ${width}px`);
        const first = page.locator(`[data-testid=${id}] .el-table__header th`).first();
        assert.match(await first.getAttribute('class'), /el-table-fixed-column--left/, `${id}: the name column is fixed (${lang} ${width}px)`);
      }
    });
  }
  assert.deepEqual(browser.errors, []);
});

test('a table of one row has no scroll box: the agent list and the model channels at 1280–1920 px', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('one-row'), toolsets: ['base'], crewRole: 'master' });
  const channel = await scriptedChannel();
  try {
    const channels = await apiData('POST', '/admin/netaclaw/channel/page', { page: 1, size: 10 });
    assert.equal(channels.list.length, 1, 'one channel: a table of one row');
    let page = await open(browser.context, '/agent/list');
    await page.locator('[data-testid=agent-table] tr.agent-row').first().waitFor();
    await page.getByTestId('agent-filter-name').fill(agent.name);
    await page.getByTestId('agent-filter-name').press('Enter');
    await page.locator(`[data-testid=agent-table] .el-table__body-wrapper tr.agent-row-${agent.id}`).waitFor();
    // the filtered page replaces the first one: its row is on both, so the count is waited for
    assert.equal(await countSettles(page.locator('[data-testid=agent-table] .el-table__body-wrapper tr.agent-row'), 1), 1);
    await atWidths(page, (width) => fits(page, 'agent-table', `one agent, ${width}px`, { y: true }));

    page = await open(browser.context, '/agent/channels');
    await page.locator('[data-testid=channel-table] .el-table__body-wrapper tr').first().waitFor();
    assert.equal(await page.locator('[data-testid=channel-table] .el-table__body-wrapper tbody tr').count(), 1);
    await atWidths(page, (width) => fits(page, 'channel-table', `one channel, ${width}px`, { y: true }));
  } finally {
    await channel.remove();
  }
  assert.deepEqual(browser.errors, []);
});
