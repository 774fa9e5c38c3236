// No raw values on screen (issue 25): in zh-CN the Tool page, the agent edit page (a session named, a
// crew role chosen, a model channel) and the batch console (a run done) show no value of the package's
// vocabularies (`catalogInfo().vocabulary`: kinds, routing hints, strategies, capabilities, crew roles,
// routes, statuses, reasons …) as a visible text of its own. Names — of tools and toolsets, marked
// `data-name` where a toolset's name is also a vocabulary's word (e.g. `memory`) — are not values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogInfo } from '@netaclaw/tool-policy';
import { apiData, forFile, launch, notesWorkspace, open, pickOption, scriptedChannel, uniqueName } from './helpers.mjs';
import { NOTES } from './model-script.mjs';

const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));
const VALUES = [...new Set(Object.values(catalogInfo().vocabulary).flat())];

/**
 * The visible texts under `scope` that are a vocabulary value: a text node's whole text, or one of its
 * parts between separators (` · `, ` / `, `:`, `=`). Runs in the page.
 */
function rawValues([scope, values]) {
  const known = new Set(values);
  const root = document.querySelector(scope);
  if (!root) return [`no ${scope}`];
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('[data-name], script, style, textarea, input') || !el.checkVisibility()) continue;
    const text = n.textContent.trim();
    if (text === '') continue;
    const parts = [text, ...text.split(/\s+[·/]\s+|[:=：]\s*/).map((p) => p.trim())];
    const hit = parts.find((p) => known.has(p));
    if (hit) found.push(`"${hit}" in <${el.tagName.toLowerCase()} class="${el.className}"> "${text.slice(0, 60)}"`);
  }
  return found;
}

async function noRawValues(page, scope, what) {
  assert.deepEqual(await page.evaluate(rawValues, [scope, VALUES]), [], what);
}

test('Tool 管理 in zh-CN: every vocabulary value is labelled (table, filter, drawer)', async () => {
  const page = await open(browser.context, '/agent/tools', { lang: 'zh-CN' });
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
  await noRawValues(page, '[data-testid=tools-page]', 'the tool page');
  // the capability filter's options
  await page.getByTestId('filter-capability').click();
  await page.locator('.popper-filter-capability .el-select-dropdown__item').first().waitFor();
  await noRawValues(page, '.popper-filter-capability', 'the capability filter');
  await page.keyboard.press('Escape');
  // the drawer of a proxied tool (its hint, mode and mirror fields)
  await page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-patch').getByTestId('edit-tool').click();
  await page.getByTestId('drawer-profile').waitFor();
  await noRawValues(page, '[data-testid=tool-drawer]', 'the tool drawer');
  assert.deepEqual(browser.errors, []);
});

test('the agent edit page in zh-CN: crew role, capability, hints and routes are labelled', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('vocab'),
    toolsets: ['base', 'planning', 'memory', 'delegation'],
    crewRole: 'master',
    memoryEnabled: true,
  });
  const channel = await scriptedChannel();
  try {
    const page = await open(browser.context, `/agent/${agent.id}`, { lang: 'zh-CN' });
    await page.locator('[data-testid=preview-profile] tr.profile-row').first().waitFor();
    await page.getByTestId('agent-channel-capability').waitFor();
    await page.getByTestId('session-named').click();
    await page.getByTestId('session-cwd').fill('/home/user/project');
    await page.locator('[data-testid=session-routes] tr.session-route-row').first().waitFor();
    await noRawValues(page, '[data-testid=agent-edit-page]', 'the agent edit page');
    assert.equal((await page.getByTestId('crew-master').innerText()).trim(), '主管（可委派）');
    // the channel select's options name the capability by its word
    await page.getByTestId('agent-channel').click();
    await page.locator('.popper-agent-channel .el-select-dropdown__item').first().waitFor();
    await noRawValues(page, '.popper-agent-channel', 'the channel options');
  } finally {
    await channel.remove();
  }
  assert.deepEqual(browser.errors, []);
});

test('the batch console in zh-CN: the crew role, the worker policy and the routes of a run are labelled', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('vocab-console'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang: 'zh-CN' });
  const con = page.getByTestId('batch-console');
  await con.waitFor();
  await con.getByTestId('console-fields').getByTestId('field-cwd').fill(workspace.path);
  const call = con.getByTestId('console-call').nth(0);
  await call.getByTestId('console-call-name').click();
  await pickOption(page, 'popper-console-call-0', 'list_dir');
  await con.getByTestId('console-run').click();
  const batch = con.getByTestId('console-runs').locator('[data-testid=batch-card]').first();
  await batch.waitFor();
  assert.equal(await batch.getAttribute('data-status'), 'completed');
  await batch.locator('.el-collapse-item__header').first().click();
  await batch.getByTestId('batch-routes').locator('tr.batch-route-row').first().waitFor();
  assert.equal(await batch.getByTestId('batch-crew-role').getAttribute('data-value'), 'sub');
  assert.equal((await batch.getByTestId('batch-crew-role').innerText()).trim(), '子 Agent');
  const policy = batch.getByTestId('batch-policy');
  assert.deepEqual(JSON.parse(await policy.getAttribute('data-roots')), [workspace.path]);
  assert.match(await policy.innerText(), /工作区根目录.*Shell 不允许.*只读 是/s);
  await noRawValues(page, '[data-testid=batch-console]', 'the batch console');
  // the scan sees a raw value, alone or after a separator (as the console showed the crew role before)
  await page.evaluate(() => {
    const probe = document.createElement('span');
    probe.id = 'raw-probe';
    probe.textContent = '模型驱动 · sub';
    document.querySelector('[data-testid=batch-console]').append(probe);
  });
  assert.equal((await page.evaluate(rawValues, ['[data-testid=batch-console]', VALUES])).length, 1, 'the scan finds a raw value');
  await page.evaluate(() => document.getElementById('raw-probe').remove());
  assert.deepEqual(browser.errors, []);
});
