// Accessibility (issue 40, item 5): axe-core (the npm package, injected into the page) run in the e2e
// browser on every page — the tools, the agents, an agent's edit page, the chat, the model channels, the
// login box, and the phone-sized chat — finds no serious or critical violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { apiData, forFile, launch, open, uniqueName, settled } from './helpers.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const browser = forFile(launch);

/** The serious and critical violations axe finds on the page as it is, one line each. */
async function violations(page) {
  // evaluated through the browser's debugging protocol: the pages' CSP allows no inline script
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${AXE}\n;void 0`);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help} — ${v.nodes
            .slice(0, 3)
            .map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)}`)
            .join(' | ')}`,
      );
  });
  return found;
}

test('axe-core: no serious or critical violation on any page, in zh-CN and en', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('a11y'), toolsets: ['base', 'planning'] });
  const pages = [
    ['/agent/tools', '[data-testid=tool-table] tr.tool-row-bash'],
    ['/agent/list', '[data-testid=agent-table] tr.agent-row'],
    [`/agent/${agent.id}`, '[data-testid=preview-profile] tr.profile-row'],
    [`/agent/chat?agent=${agent.id}`, '[data-testid=chat-offered] [data-tool]'],
    ['/agent/channels', '[data-testid=channel-table]'],
  ];
  const problems = [];
  for (const lang of ['zh-CN', 'en']) {
    for (const [hash, ready] of pages) {
      const page = await open(browser.context, hash, { lang });
      await page.locator(ready).first().waitFor();
      await settled(page);
      for (const v of await violations(page)) problems.push(`${hash} ${lang}: ${v}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(browser.errors, []);
});

test('axe-core: the login box, and the chat at 390 px with its menu drawer open', async () => {
  const fresh = await launch();
  try {
    const page = await open(fresh.context, '/agent/tools', { login: false });
    await page.getByTestId('token-input').waitFor();
    await settled(page);
    assert.deepEqual(await violations(page), [], 'the login box');
  } finally {
    await fresh.close();
  }
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('a11y-phone'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
  assert.deepEqual(await violations(page), [], 'the chat at 390 px');
  await page.getByTestId('open-menu').click();
  await page.getByTestId('menu-drawer').getByTestId('menu-tools').waitFor();
  await settled(page);
  assert.deepEqual(await violations(page), [], 'the menu drawer');
  await page.setViewportSize({ width: 1920, height: 1080 });
  assert.deepEqual(browser.errors, []);
});

test('axe-core: a delete confirmation and its refusal, a session with its delete button, an unknown tool under the console', async () => {
  const member = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('a11y-member'), toolsets: ['base'] });
  await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('a11y-lead'),
    toolsets: ['base', 'delegation'],
    crewRole: 'master',
    crewMembers: [member.id],
  });
  const list = await open(browser.context, '/agent/list');
  await list.getByTestId('agent-filter-name').fill(member.name);
  await list.getByTestId('agent-filter-name').press('Enter');
  const row = list.locator(`[data-testid=agent-table] tr.agent-row-${member.id}`);
  await row.getByTestId('agent-delete').click();
  await list.locator('.el-message-box').waitFor();
  // faded in: the box and everything around it fully opaque (axe reads a half-faded text as low contrast)
  await list.waitForFunction(() => {
    for (let el = document.querySelector('.el-message-box'); el; el = el.parentElement) if (getComputedStyle(el).opacity !== '1') return false;
    return true;
  });
  await settled(list);
  assert.deepEqual(await violations(list), [], 'the delete confirmation');
  await list.locator('.confirm-delete-agent').click();
  await list.getByTestId('agent-delete-error').waitFor();
  await list.locator('.el-message-box').waitFor({ state: 'hidden' });
  await settled(list);
  assert.deepEqual(await violations(list), [], 'a refused delete');

  // a session (the demonstration model answers: no channel needed) with its delete button; the console
  // with a tool that does not exist
  const r = await fetch(`${process.env.E2E_BASE_URL}/api/netaclaw/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ agentId: member.id, message: 'hello' }),
  });
  const sessionId = (await r.json()).data.sessionId;
  const chat = await open(browser.context, `/agent/chat?agent=${member.id}&session=${sessionId}`);
  await chat.getByTestId('chat-session-delete').waitFor();
  const call = chat.getByTestId('batch-console').getByTestId('console-call').first();
  await call.getByTestId('console-call-name').click();
  await chat.keyboard.type('no_such_tool');
  await chat.keyboard.press('Enter');
  await call.getByTestId('console-call-unknown').waitFor();
  await chat.keyboard.press('Escape');
  await settled(chat);
  assert.deepEqual(await violations(chat), [], 'a session and an unknown tool');
  assert.deepEqual(browser.errors, []);
});
