// 对话 · 子 Agent: the dynamic routes of a sub-agent batch, their reason labels, and where they
// differ from the static profile; the browser's diagnostic equals the backend's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { apiData, canonical, launch, open, pickOption, screenshot, uniqueName } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const routeRow = (page, name) => page.locator(`[data-testid=route-table] .el-table__body-wrapper tr.route-row-${name}`);
const blocked = async (page, name) => (await routeRow(page, name).locator('.blocked-reason').innerText()).trim();

test('unsetting write permission blocks write_file with write_blocked_by_readonly_policy', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('sub'),
    toolsets: ['base', 'planning', 'memory'],
    memoryEnabled: true,
    modelCapability: 'text',
    skills: [],
    crewRole: 'sub',
  });
  const page = await open(browser.context, `/chat?agent=${agent.id}`);
  await page.getByTestId('route-table').waitFor();
  assert.match((await page.getByTestId('chat-agent').innerText()).trim(), new RegExp(`#${agent.id} `));

  // no cwd yet: base tools need a workspace root
  assert.equal(await blocked(page, 'read_file'), label('reasons', 'workspace_root_required', 'zh-CN'));

  await page.getByTestId('chat-cwd').fill('/srv/project/./src/..');
  await page.getByTestId('chat-roots').click();
  await page.keyboard.type('/data//shared/');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.getByTestId('chat-write').click(); // write permitted
  await routeRow(page, 'write_file').locator('[data-route=main-process-proxy]').waitFor();
  assert.equal(await blocked(page, 'write_file'), label('reasons', 'requires_main_process_proxy', 'zh-CN'));
  assert.match(await page.getByTestId('chat-policy').innerText(), /workspaceRoots=\[\/srv\/project, \/data\/shared\].*readonly=false/s);

  // unset write permission → write_file is blocked by the readonly policy
  await page.getByTestId('chat-write').click();
  await routeRow(page, 'write_file').locator('[data-route=disabled]').waitFor();
  assert.equal(await blocked(page, 'write_file'), label('reasons', 'write_blocked_by_readonly_policy', 'zh-CN'));
  const all = (await routeRow(page, 'write_file').locator('.all-reasons .reason-tag').allInnerTexts()).map((s) => s.trim());
  assert.deepEqual(all, [label('reasons', 'write_blocked_by_readonly_policy', 'zh-CN'), label('reasons', 'requires_main_process_proxy', 'zh-CN')]);
  assert.equal(await routeRow(page, 'write_file').locator('.static-note').getAttribute('data-kind'), 'differs');

  // bash: static profile says worker-local, shell not permitted → said explicitly
  assert.equal(await blocked(page, 'bash'), label('reasons', 'shell_disabled_by_policy', 'zh-CN'));
  const bashNote = routeRow(page, 'bash').locator('.static-note');
  assert.equal(await bashNote.getAttribute('data-kind'), 'local-but-blocked');
  assert.match(await bashNote.innerText(), new RegExp(label('routes', 'disabled', 'zh-CN')));
  // read_file runs locally as its static profile says
  await routeRow(page, 'read_file').locator('[data-route=worker-local]').waitFor();
  assert.equal(await routeRow(page, 'read_file').locator('.static-note').getAttribute('data-kind'), 'same');

  await screenshot(page, 'chat-subagent');

  // shell permitted → bash worker-local
  await page.getByTestId('chat-shell').click();
  await routeRow(page, 'bash').locator('[data-route=worker-local]').waitFor();
  assert.equal(await routeRow(page, 'bash').locator('.static-note').getAttribute('data-kind'), 'same');

  // select only read_file and bash: the others are not selected for the sub-agent
  await page.getByTestId('chat-tools').click();
  await pickOption(page, 'popper-chat-tools', 'read_file');
  await pickOption(page, 'popper-chat-tools', 'bash');
  await page.keyboard.press('Escape');
  const chosen = await page.getByTestId('chat-tools').locator('.el-tag').allInnerTexts();
  assert.deepEqual(chosen.map((s) => s.trim()), ['read_file', 'bash']);
  await routeRow(page, 'grep').locator('[data-route=disabled]').waitFor();
  assert.equal(await blocked(page, 'grep'), label('reasons', 'not_selected_for_subagent', 'zh-CN'));
  // dropped by the resolver: not-selected with the resolver's reason
  assert.equal(await blocked(page, 'delegate_task'), label('reasons', 'toolset_not_selected', 'zh-CN'));

  // the browser's diagnostic equals the backend's for the same batch
  const computed = JSON.parse(await page.getByTestId('chat-diag-json').textContent());
  const backend = await apiData('POST', '/admin/netaclaw/tool/diagnostic', {
    agentId: agent.id,
    subagentTools: ['read_file', 'bash'],
    sessionCwd: '/srv/project/./src/..',
    workspaceRoots: ['/data//shared/'],
    shellPermitted: true,
    writePermitted: false,
  });
  assert.equal(canonical(computed), canonical(backend));
  await page.getByTestId('chat-compare-btn').click();
  await page.getByTestId('chat-backend-compare').waitFor();
  assert.equal(await page.getByTestId('chat-backend-compare').getAttribute('data-equal'), 'true');

  assert.deepEqual(browser.errors, []);
});

test('a relative workspace root is shown as invalid input, not a crash', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('rel'), toolsets: ['base'] });
  const page = await open(browser.context, `/chat?agent=${agent.id}`);
  await page.getByTestId('route-table').waitFor();
  await page.getByTestId('chat-cwd').fill('relative/dir');
  await page.getByTestId('chat-diag-error').waitFor();
  assert.match(await page.getByTestId('chat-diag-error').innerText(), /invalid_input/);
  await page.getByTestId('chat-cwd').fill('/abs/dir');
  await page.getByTestId('route-table').waitFor();
  await routeRow(page, 'read_file').locator('[data-route=worker-local]').waitFor();
  assert.deepEqual(browser.errors, []);
});
