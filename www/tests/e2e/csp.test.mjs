// The pages under the backend's Content-Security-Policy: every page and the interactions that build
// UI (dropdowns, drawer, tabs, transfer, messages) run without a single CSP violation; the policy
// package's wasm loads ('wasm-unsafe-eval'); an inline script is refused, which shows the check sees
// violations when there are any.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, apiData, forFile, launch, notesWorkspace, open, scriptedChannel, switchLocale, uniqueName } from './helpers.mjs';
import { MESSAGES, NOTES } from './model-script.mjs';

const violations = [];
const consoleCsp = [];

// a browser whose every document records its securitypolicyviolation events
const browser = forFile(async () => {
  const launched = await launch();
  await launched.context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  launched.context.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) consoleCsp.push(msg.text());
  });
  return launched;
});

async function collect(page) {
  violations.push(...(await page.evaluate(() => window.__cspViolations ?? [])));
}

test('the pages answer with the policy and run without a CSP violation', async () => {
  const res = await fetch(`${BASE}/`);
  const csp = res.headers.get('content-security-policy');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');

  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('csp'), toolsets: ['base', 'planning'] });

  // Tool 管理: table, a filter dropdown, the edit drawer, a save with its message
  let page = await open(browser.context, '/agent/tools');
  await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
  await page.getByTestId('filter-toolset').click();
  await page.locator('.el-select-dropdown:visible .el-select-dropdown__item').first().waitFor();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-grep').getByTestId('edit-tool').click();
  const drawer = page.getByTestId('tool-drawer');
  await drawer.getByTestId('drawer-field-label').fill(uniqueName('label'));
  await drawer.getByTestId('drawer-save').click();
  await page.locator('.el-message--success').first().waitFor();
  await switchLocale(page, 'en');
  await switchLocale(page, 'zh-CN');
  await collect(page);

  // Agent 列表 → 编辑: the wasm preview, tabs, the transfer, a select
  page = await open(browser.context, `/agent/${agent.id}`);
  await page.getByTestId('injected-tools').locator('[data-tool=read_file]').waitFor();
  await page.getByTestId('agent-capability').click();
  await page.locator('.popper-agent-capability .el-select-dropdown__item').first().waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('transfer-item-bash').click();
  await page.getByRole('tab', { name: /基本信息/ }).click();
  await page.getByTestId('agent-name').waitFor();
  await page.getByTestId('backend-compare-btn').click();
  await page.getByTestId('backend-compare').waitFor();
  await collect(page);

  page = await open(browser.context, '/agent/list');
  await page.locator('[data-testid=agent-table] tr.agent-row').first().waitFor();
  await collect(page);

  // 对话 · 子 Agent: a chat turn over the WebSocket, a delegated batch read from its event stream, the
  // batch console; 模型渠道: the table, the dialog, a confirmation
  const channel = await scriptedChannel();
  const work = notesWorkspace(NOTES);
  try {
    const master = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('csp-master'), toolsets: ['base', 'delegation'], crewRole: 'master' });
    page = await open(browser.context, `/agent/chat?agent=${master.id}`);
    await page.getByTestId('chat-channel').waitFor();
    await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(work.path);
    await page.getByTestId('chat-input').fill(MESSAGES.delegate);
    await page.getByTestId('chat-send').click();
    await page.locator('[data-testid=chat-batches] [data-testid=batch-card][data-status=completed]').waitFor();
    await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
    await page.locator('[data-testid=chat-batches] .el-collapse-item__header').first().click();
    await page.getByTestId('batch-routes').waitFor();
    await page.getByTestId('batch-console').getByTestId('console-run').click(); // no tool name yet: the page says so
    await page.getByTestId('console-error').waitFor();
    await collect(page);

    page = await open(browser.context, '/agent/channels');
    const row = page.locator(`[data-testid=channel-table] tr.channel-row-${channel.channel.id}`);
    await row.waitFor();
    await page.getByTestId('channel-add').click();
    await page.getByTestId('channel-dialog').getByTestId('channel-name').waitFor();
    await page.keyboard.press('Escape');
    await row.getByTestId('channel-delete').click();
    await page.locator('.el-popconfirm').first().waitFor();
    await collect(page);
  } finally {
    await channel.remove();
    work.remove();
  }

  assert.deepEqual(violations, []);
  assert.deepEqual(consoleCsp, []);
  assert.deepEqual(browser.errors, []);
});

test('an inline script is refused and reported (the check above can see violations)', async () => {
  const page = await open(browser.context, '/agent/tools');
  await page.getByTestId('tools-page').waitFor();
  // read once the browser has reported the refusal (an allowed inline script would have run on insertion)
  const ran = await page.evaluate(
    () =>
      new Promise((resolve) => {
        window.__inlineRan = false;
        document.addEventListener('securitypolicyviolation', () => resolve(window.__inlineRan), { once: true });
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = true';
        document.body.appendChild(s);
        if (window.__inlineRan) resolve(true);
      }),
  );
  assert.equal(ran, false, 'the inline script did not run');
  const seen = await page.evaluate(() => window.__cspViolations);
  assert.ok(
    seen.some((v) => v.startsWith('script-src')),
    JSON.stringify(seen),
  );
  // the console's report reaches the test on its own channel: waited for (5 s at most)
  const deadline = Date.now() + 5000;
  while (!consoleCsp.some((m) => /Content Security Policy/.test(m)) && Date.now() < deadline) await page.evaluate(() => 0);
  assert.ok(
    consoleCsp.some((m) => /Content Security Policy/.test(m)),
    JSON.stringify(consoleCsp),
  );
});
