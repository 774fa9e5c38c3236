// The three pages open from the left menu and show their data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { apiData, countSettles, forFile, launch, open, screenshot, serverCatalog, uniqueName } from './helpers.mjs';

const browser = forFile(launch);

test('the three pages open from the left menu', async () => {
  const name = uniqueName('pages');
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name, toolsets: ['base', 'planning'] });

  const catalog = await serverCatalog();
  const page = await open(browser.context, '/agent/tools');
  // Tool 管理: the table lists the whole catalog, mirror fields and runtime profile.
  await page.getByTestId('tools-page').waitFor();
  await page.locator('.tool-row-bash').first().waitFor();
  const all = await apiData('GET', '/admin/netaclaw/tool/all');
  const toolRows = await countSettles(page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row'), Math.min(all.length, 50));
  // every catalog tool has its row; other rows are orphans (tools of an MCP server an earlier test deleted)
  const rowNames = new Set(all.map((r) => r.name));
  assert.ok(
    catalog.every((m) => rowNames.has(m.name)),
    'every catalog tool has a row',
  );
  assert.equal(toolRows, Math.min(all.length, 50));
  const bashRow = page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-bash');
  await assert.doesNotReject(bashRow.locator('[data-worker-hint=local]').waitFor({ timeout: 5000 }));

  // Agent 列表 → 编辑
  await page.getByTestId('menu-agents').click();
  await page.getByTestId('agents-page').waitFor();
  await page.locator('[data-testid=agent-table] tr.agent-row').first().waitFor();
  // the demo's example agents, seeded into the empty table at start (run.mjs sets NETACLAW_SEED_FILE)
  const seeded = JSON.parse(readFileSync(new URL('../../../scripts/demo/agents.json', import.meta.url), 'utf8'));
  await page.getByTestId('agent-filter-name').fill('示例');
  await page.getByTestId('agent-filter-name').press('Enter');
  const agentRows = page.locator('[data-testid=agent-table] .el-table__body-wrapper tr.agent-row');
  assert.equal(await countSettles(agentRows, seeded.length), seeded.length);
  const names = await page.locator('[data-testid=agent-table] .el-table__body-wrapper tr.agent-row td:nth-child(2)').allInnerTexts();
  assert.deepEqual(
    names.map((n) => n.trim()),
    seeded.map((a) => a.name),
  );
  await screenshot(page, 'agents');
  await page.getByTestId('agent-filter-name').fill(name);
  await page.getByTestId('agent-filter-name').press('Enter');
  await page.locator(`.agent-row-${agent.id}`).first().waitFor();
  assert.equal(await countSettles(page.locator('[data-testid=agent-table] .el-table__body-wrapper tr.agent-row'), 1), 1);
  await page.locator(`.agent-row-${agent.id}`).first().getByRole('button', { name: '编辑' }).click();
  await page.getByTestId('agent-edit-page').waitFor();
  assert.match(page.url(), new RegExp(`#/agent/${agent.id}$`));
  await page.getByTestId('injected-tools').locator('[data-tool=read_file]').waitFor();
  await page.getByRole('tab', { name: /基本信息/ }).click();
  assert.equal(await page.getByTestId('agent-name').inputValue(), name);

  // 对话 · 子 Agent: the chat, the session's batches, the batch console
  await page.getByTestId('menu-chat').click();
  await page.getByTestId('chat-page').waitFor();
  await page.getByTestId('chat-batches').waitFor();
  await page.getByTestId('batch-console').waitFor();
  await page.getByTestId('chat-offered').locator('[data-tool]').first().waitFor();

  // 模型渠道
  await page.getByTestId('menu-channels').click();
  await page.getByTestId('channels-page').waitFor();
  await page.getByTestId('channel-table').waitFor();

  assert.deepEqual(browser.errors, []);
});
