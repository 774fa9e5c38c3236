// Agent 编辑 → 工具配置: a setting changes the reason label; save and reopen restores every field;
// the preview computed in the browser equals the backend's previewPrompt and diagnostic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentResolveInput, getToolNamesByToolset, label, profileRouteDiff, runtimeDiagnostic } from '@netaclaw/tool-policy';
import zhCn from 'element-plus/es/locale/lang/zh-cn.mjs';
import en from 'element-plus/es/locale/lang/en.mjs';
import {
  apiData,
  assertLocalizedErrors,
  canonical,
  countSettles,
  forFile,
  launch,
  open,
  pickOption,
  screenshot,
  serverCatalog,
  switchLocale,
  uniqueName,
} from './helpers.mjs';

const browser = forFile(launch);

async function droppedReason(page, tool) {
  const row = page.locator(`[data-testid=dropped-tools] .el-table__body-wrapper tr.dropped-row-${tool}`);
  if ((await row.count()) === 0) return null;
  return (await row.locator('.reason-tag').innerText()).trim();
}

test('disabling bash for an agent shows disabled_by_agent, in zh-CN then en; save and reopen restores', async () => {
  const name = uniqueName('edit');
  const page = await open(browser.context, '/agent/new');
  await page.getByTestId('agent-edit-page').waitFor();
  await page.getByRole('tab', { name: /基本信息/ }).click();
  await page.getByTestId('agent-name').fill(name);
  await page.getByTestId('agent-system-prompt').fill('You are a careful test agent.');
  await page.getByRole('tab', { name: /工具配置/ }).click();

  // toolsets: explicit base + planning + memory
  await page.getByTestId('agent-toolsets-default').click(); // leave the legacy defaults
  const toolsets = page.getByTestId('agent-toolsets');
  // start from the defaults the checkbox pre-filled, then keep base/planning/memory only
  for (const ts of ['skills', 'delegation']) {
    await toolsets.locator('.el-tag', { hasText: ts }).locator('.el-tag__close').click();
  }
  await toolsets.click();
  await pickOption(page, 'popper-agent-toolsets', 'vision');
  await page.keyboard.press('Escape');

  // bash is injected before it is disabled
  await page.getByTestId('injected-tools').locator('[data-tool=bash]').waitFor();
  assert.equal(await droppedReason(page, 'bash'), null);

  // move bash to the "disabled overrides" column
  const transfer = page.getByTestId('agent-disabled-transfer');
  const left = transfer.locator('.el-transfer-panel').first();
  await left.locator('.el-transfer-panel__item', { has: page.getByTestId('transfer-item-bash') }).click();
  await transfer.locator('.el-transfer__buttons button').nth(1).click();
  await transfer.locator('.el-transfer-panel').nth(1).getByTestId('transfer-item-bash').waitFor();

  await page.locator('[data-testid=dropped-tools] tr.dropped-row-bash').waitFor();
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'zh-CN'));
  await page.getByTestId('injected-tools').locator('[data-tool=bash]').waitFor({ state: 'detached', timeout: 5000 });

  // capability vision, memory on, a skill, crew master
  await page.getByTestId('agent-capability').click();
  await pickOption(page, 'popper-agent-capability', '视觉');
  await page.getByTestId('agent-memory').click();
  const skills = page.getByTestId('agent-skills');
  await skills.click();
  await page.keyboard.type('code-review');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.getByTestId('crew-master').click();

  // switch to en → the en label
  await switchLocale(page, 'en');
  await page
    .getByText(label('reasons', 'disabled_by_agent', 'en'))
    .first()
    .waitFor();
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'en'));
  assert.notEqual(label('reasons', 'disabled_by_agent', 'en'), label('reasons', 'disabled_by_agent', 'zh-CN'));
  await screenshot(page, 'agent-edit-en');
  await switchLocale(page, 'zh-CN');
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'zh-CN'));

  // save → the page becomes /agent/:id, loaded back from the backend
  await page.getByTestId('agent-save').click();
  await page.waitForURL(/#\/agent\/\d+$/);
  const id = Number(page.url().match(/#\/agent\/(\d+)$/)[1]);
  const saved = await apiData('GET', `/admin/netaclaw/agent/info?id=${id}`);
  assert.equal(saved.name, name);
  assert.equal(saved.systemPrompt, 'You are a careful test agent.');
  assert.deepEqual(saved.toolsets, ['base', 'planning', 'memory', 'vision']);
  assert.deepEqual(saved.tools?.disabled, ['bash']);
  assert.equal(saved.modelCapability, 'vision');
  assert.equal(saved.memoryEnabled, true);
  assert.deepEqual(saved.skills, ['code-review']);
  assert.equal(saved.crewRole, 'master');

  // reopen in a fresh page load: every field is restored
  await page.reload();
  await page.getByTestId('agent-edit-page').waitFor();
  await page.locator('[data-testid=dropped-tools] tr.dropped-row-bash').waitFor();
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'zh-CN'));
  const tsTags = await page.getByTestId('agent-toolsets').locator('.el-tag').allInnerTexts();
  assert.deepEqual(
    tsTags.map((s) => s.trim()),
    ['base', 'planning', 'memory', 'vision'],
  );
  assert.equal(await page.getByTestId('agent-toolsets-default').locator('input').isChecked(), false);
  await transferRight(page, ['bash']);
  assert.equal((await page.getByTestId('agent-capability').innerText()).trim(), '视觉'); // vision, in the page's words
  assert.equal(await page.getByTestId('agent-memory').locator('input').isChecked(), true);
  assert.deepEqual(
    (await page.getByTestId('agent-skills').locator('.el-tag').allInnerTexts()).map((s) => s.trim()),
    ['code-review'],
  );
  assert.equal(await page.getByTestId('crew-master').locator('input').isChecked(), true);
  await page.getByRole('tab', { name: /基本信息/ }).click();
  assert.equal(await page.getByTestId('agent-name').inputValue(), name);
  assert.equal(await page.getByTestId('agent-system-prompt').inputValue(), 'You are a careful test agent.');
  await page.getByRole('tab', { name: /工具配置/ }).click();

  // crew master + memory on: delegate_* and memory_* are injected; skills toolset not selected
  await page.getByTestId('injected-tools').locator('[data-tool=memory_save]').waitFor();
  assert.equal(await droppedReason(page, 'read_skill'), label('reasons', 'toolset_not_selected', 'zh-CN'));
  await screenshot(page, 'agent-edit');
  assert.deepEqual(browser.errors, []);
});

async function transferRight(page, names) {
  const right = page.getByTestId('agent-disabled-transfer').locator('.el-transfer-panel').nth(1);
  const items = await right.locator('[data-testid^=transfer-item-]').allInnerTexts();
  assert.deepEqual(
    items.map((s) => s.trim()),
    names,
  );
}

test('the preview computed in the browser equals the backend previewPrompt and diagnostic', async () => {
  const name = uniqueName('same');
  // a governance change too, so the rows matter: a prompt hint on patch
  const patchRow = await apiData('GET', '/admin/netaclaw/tool/info?name=patch');
  await apiData('POST', '/admin/netaclaw/tool/update', { id: patchRow.id, promptHint: 'Prefer small unified diffs.' });
  try {
    const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
      name,
      systemPrompt: 'identity layer',
      toolsets: ['base', 'planning', 'skills', 'nope'],
      tools: { disabled: ['grep', 'todo', 'ghost_tool'] },
      modelCapability: null,
      memoryEnabled: false,
      skills: ['code-review'],
      crewRole: 'sub',
    });
    const page = await open(browser.context, `/agent/${agent.id}`);
    await page.getByTestId('agent-edit-page').waitFor();
    const pre = page.getByTestId('preview-json');
    await page.waitForFunction(() => document.querySelector('[data-testid=preview-json]')?.textContent?.trim().length > 0);
    await page.getByTestId('injected-tools').locator('[data-tool=patch]').waitFor();
    const computed = JSON.parse(await pre.textContent());

    const prompt = await apiData('POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id });
    const diagnostic = await apiData('POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id });
    // the channel and whether it is the demonstration model are the backend's to know, not the package's
    const { layers, systemPrompt: _joined, channel: _channel, demoModel: _demo, ...resolvedFromBackend } = prompt;
    assert.equal(canonical(computed.resolved), canonical(resolvedFromBackend));
    assert.equal(computed.guidance, layers.find((l) => l.key === 'tools').content);
    assert.equal(layers.find((l) => l.key === 'identity').content, `Your name is ${name}.\nidentity layer`);
    assert.equal(canonical(computed.diagnostic), canonical(diagnostic));
    // and it is not trivially equal: the hint, the unknown names and the core warning are in it
    assert.equal(computed.resolved.toolPromptHints.patch, 'Prefer small unified diffs.');
    // the guidance layer names the tools offered: with no session (no root) the file tools are not, the planning ones are
    assert.match(computed.guidance, /- todo: /);
    assert.doesNotMatch(computed.guidance, /- patch: /);
    const codes = computed.resolved.warnings.map((w) => `${w.code}:${w.subject}`);
    assert.ok(codes.includes('unknown_toolset:nope'), codes.join(','));
    assert.ok(codes.includes('unknown_tool:ghost_tool'), codes.join(','));
    assert.ok(codes.includes('core_tool_cannot_be_disabled:todo'), codes.join(','));
    assert.ok(codes.includes('capability_fallback_text:modelCapability'), codes.join(','));

    // the page's own comparison button agrees
    await page.getByTestId('backend-compare-btn').click();
    await page.getByTestId('backend-compare').waitFor();
    assert.equal(await page.getByTestId('backend-compare').getAttribute('data-equal'), 'true');
    // warnings are shown with their labels
    const warn = page.locator('[data-testid=preview-warnings] li[data-code=unknown_toolset] .reason-tag');
    assert.equal((await warn.innerText()).trim(), label('reasons', 'unknown_toolset', 'zh-CN'));
    assert.deepEqual(browser.errors, []);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', { id: patchRow.id, promptHint: patchRow.promptHint });
  }
});

const profileRow = (page, name) => page.locator(`[data-testid=preview-profile] .el-table__body-wrapper tr.profile-row-${name}`);
const sessionRow = (page, name) => page.locator(`[data-testid=session-routes] .el-table__body-wrapper tr.session-route-row-${name}`);

test('the edit page shows the static profile; dynamic routes only for a session the admin names', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('static'),
    toolsets: ['base', 'planning'],
    tools: { disabled: ['grep'] },
  });
  const page = await open(browser.context, `/agent/${agent.id}`);
  await profileRow(page, 'read_file').waitFor();

  // static: every tool with what the agent gets, no route of a session nobody named
  const catalog = await serverCatalog();
  const rowsShown = page.locator('[data-testid=preview-profile] .el-table__body-wrapper tr.profile-row');
  assert.equal(await countSettles(rowsShown, catalog.length), catalog.length);
  assert.equal(await profileRow(page, 'read_file').getByTestId('gets').count(), 1);
  assert.equal((await profileRow(page, 'grep').locator('.reason-tag').innerText()).trim(), label('reasons', 'disabled_by_agent', 'zh-CN'));
  assert.equal((await profileRow(page, 'memory_save').locator('.reason-tag').innerText()).trim(), label('reasons', 'toolset_not_selected', 'zh-CN'));
  const previewText = await page.getByTestId('agent-preview').innerText();
  assert.doesNotMatch(previewText, new RegExp(label('reasons', 'workspace_root_required', 'zh-CN')));
  assert.equal(await page.getByTestId('session-routes').count(), 0);

  // a named session: its routes, labelled as that session's, and what its static profile would run
  await page.getByTestId('session-named').click();
  // a relative working directory: the package refuses it, said under the field in the page's words
  await page.getByTestId('session-cwd').fill('relative/dir');
  await page.getByTestId('session-cwd-item').locator('.el-form-item__error').waitFor();
  await assertLocalizedErrors(page.getByTestId('session-section'), 'zh-CN', 'a relative session cwd');
  await page.getByTestId('session-cwd').fill('/srv/app');
  await sessionRow(page, 'read_file').locator('[data-route=worker-local]').waitFor();
  const title = await page.getByTestId('session-title').innerText();
  assert.match(title, /cwd=\/srv\/app/);
  assert.match(title, /允许 Shell=否/);
  const d = runtimeDiagnostic({
    catalog,
    governance: await apiData('GET', '/admin/netaclaw/tool/all'),
    ...agentResolveInput({ agent }),
    sessionCwd: '/srv/app',
  });
  // the tools the agent gets whose static profile runs while this session blocks them (not grep: the agent dropped it)
  const expected = profileRouteDiff(d)
    .map((x) => x.name)
    .filter((n) => d.resolved.toolNames.includes(n));
  assert.ok(expected.includes('bash') && expected.includes('write_file') && !expected.includes('grep'), expected.join(','));
  const flagged = await page
    .locator('[data-testid=session-routes] tr.is-blocked-by-session')
    .evaluateAll((trs) => trs.map((tr) => [...tr.classList].find((c) => c.startsWith('session-route-row-')).slice('session-route-row-'.length)));
  assert.deepEqual(flagged, expected);
  const bashReasons = await sessionRow(page, 'bash').locator('.reason-tag').allInnerTexts();
  assert.deepEqual(
    bashReasons.map((s) => s.trim()),
    [label('reasons', 'shell_disabled_by_policy', 'zh-CN')],
  );
  // shell permitted in that session: bash runs in the worker
  await page.getByTestId('session-shell').click();
  await sessionRow(page, 'bash').locator('[data-route=worker-local]').waitFor();
  // the comparison with the backend is of this session: its prompt names the cwd, its routes are the session's
  await page.getByTestId('backend-compare-btn').click();
  const compared = page.getByTestId('backend-compare');
  await compared.waitFor();
  assert.equal(await page.getByTestId('backend-compare-scope').getAttribute('data-session'), 'named');
  assert.match(await compared.innerText(), /\/srv\/app/);
  assert.equal(await compared.getAttribute('data-equal'), 'true');
  await screenshot(page, 'agent-edit-session');
  // unnamed again: gone
  await page.getByTestId('session-named').click();
  await page.getByTestId('session-routes').waitFor({ state: 'detached' });
  assert.deepEqual(browser.errors, []);
});

test('可用工具 lists what the selected toolsets give; Element Plus speaks the page locale', async () => {
  const catalog = await serverCatalog();
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('avail'), toolsets: ['planning'] });
  const page = await open(browser.context, `/agent/${agent.id}`);
  const left = page.getByTestId('agent-disabled-transfer').locator('.el-transfer-panel').first();
  await left.getByTestId('transfer-item-todo').waitFor();
  const listed = async () => (await left.locator('[data-testid^=transfer-item-]').allInnerTexts()).map((s) => s.trim());
  assert.deepEqual(await listed(), getToolNamesByToolset('planning', catalog));
  // add the memory toolset: its tools join the list
  await page.getByTestId('agent-toolsets').click();
  await pickOption(page, 'popper-agent-toolsets', 'memory');
  await page.keyboard.press('Escape');
  await left.getByTestId('transfer-item-memory_save').waitFor();
  assert.deepEqual(await listed(), [...getToolNamesByToolset('planning', catalog), ...getToolNamesByToolset('memory', catalog)]);

  // the transfer's own texts follow the locale switch (Element Plus's locale, not its English default); the
  // search box says the page's short words, which a narrow column does not cut (wrapping.test.mjs)
  const filter = page.getByTestId('agent-disabled-transfer').locator('.el-transfer-panel__filter input').first();
  assert.equal(await filter.getAttribute('placeholder'), '搜索工具');
  const right = page.getByTestId('agent-disabled-transfer').locator('.el-transfer-panel').nth(1);
  assert.equal((await right.locator('.el-transfer-panel__empty').innerText()).trim(), zhCn.el.transfer.noData);
  await switchLocale(page, 'en');
  assert.equal(await filter.getAttribute('placeholder'), 'Search tools');
  assert.equal((await right.locator('.el-transfer-panel__empty').innerText()).trim(), en.el.transfer.noData);
  await switchLocale(page, 'zh-CN');
  assert.deepEqual(browser.errors, []);
});

test('子 Agent 允许工具: stored on the agent, restored on reload, and a named session routes only those', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('subtools'),
    toolsets: ['base', 'planning'],
    subagentTools: ['read_file'],
  });
  const page = await open(browser.context, `/agent/${agent.id}`);
  const select = page.getByTestId('agent-subagent-tools');
  await select.locator('.el-tag', { hasText: 'read_file' }).waitFor();
  assert.equal(await page.getByTestId('agent-subagent-all').locator('input').isChecked(), false);
  await select.click();
  await pickOption(page, 'popper-agent-subagent-tools', 'list_dir');
  await page.keyboard.press('Escape');
  await page.getByTestId('agent-save').click();
  await page.locator('.el-message--success').first().waitFor();
  assert.deepEqual((await apiData('GET', `/admin/netaclaw/agent/info?id=${agent.id}`)).subagentTools, ['read_file', 'list_dir']);

  await page.reload();
  await select.locator('.el-tag', { hasText: 'list_dir' }).waitFor();
  assert.deepEqual(
    (await select.locator('.el-tag').allInnerTexts()).map((s) => s.trim()),
    ['read_file', 'list_dir'],
  );
  // a named session: its own routes (the main agent's, as the chat gets them), not the sub-agent's — grep
  // runs there although the sub-agents may not use it, and nothing blames the session for that selection
  await page.getByTestId('session-named').click();
  await page.getByTestId('session-cwd').fill('/srv/app');
  await sessionRow(page, 'read_file').locator('[data-route=worker-local]').waitFor();
  await sessionRow(page, 'list_dir').locator('[data-route=worker-local]').waitFor();
  await sessionRow(page, 'grep').locator('[data-route=worker-local]').waitFor();
  assert.doesNotMatch(await page.getByTestId('session-routes').innerText(), new RegExp(label('reasons', 'not_selected_for_subagent', 'zh-CN')));
  assert.match(await page.getByTestId('session-routes-own').innerText(), /主 Agent 在这个会话中的路由/);
  // the same routes as the chat page's diagnostic of that session
  const chatRoutes = await apiData('POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id, sessionCwd: '/srv/app' });
  for (const name of ['grep', 'bash', 'write_file']) {
    const r = chatRoutes.routes.find((x) => x.name === name);
    assert.equal(await sessionRow(page, name).locator(`[data-route="${r.route}"]`).count(), 1, name);
  }
  // a tool the session blocks says why: the deciding reason, named
  const blocked = sessionRow(page, 'bash').getByTestId('blocked-by-session');
  assert.equal(await blocked.getAttribute('data-code'), 'shell_disabled_by_policy');
  assert.equal((await blocked.innerText()).trim(), `静态画像可运行，本 session 阻断：${label('reasons', 'shell_disabled_by_policy', 'zh-CN')}`);
  await switchLocale(page, 'en');
  assert.equal((await blocked.innerText()).trim(), `The static profile runs; this session blocks it: ${label('reasons', 'shell_disabled_by_policy', 'en')}`);
  await switchLocale(page, 'zh-CN');

  // at 1280 × 800 the comparison's result comes right under its button, in view and focused
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId('backend-compare-btn').scrollIntoViewIfNeeded();
  await page.getByTestId('backend-compare-btn').click();
  const compared = page.getByTestId('backend-compare');
  await compared.waitFor();
  assert.equal(await compared.getAttribute('data-equal'), 'true');
  const btn = await page.getByTestId('backend-compare-btn').boundingBox();
  const res = await compared.boundingBox();
  assert.ok(res.y - (btn.y + btn.height) < 120, `the result is next to its button (${btn.y + btn.height} → ${res.y})`);
  assert.ok(res.y >= 0 && res.y < 800, `the result is in view (${res.y})`);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'backend-compare-result');
  await page.setViewportSize({ width: 1920, height: 1080 });

  // all again: stored as null
  await page.getByTestId('agent-subagent-all').click();
  await page.getByTestId('agent-save').click();
  await page.locator('.el-message--success').nth(0).waitFor();
  await expectStored(agent.id, (a) => a.subagentTools === null);
  assert.deepEqual(browser.errors, []);
});

async function expectStored(id, ok) {
  const deadline = Date.now() + 5000;
  let last;
  while (Date.now() < deadline) {
    last = await apiData('GET', `/admin/netaclaw/agent/info?id=${id}`);
    if (ok(last)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`agent ${id} is ${JSON.stringify(last)}`);
}

test('Crew 成员: other agents picked by name, stored as ids, restored on reload; the agent itself is not offered', async () => {
  const member = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('crew-member'), toolsets: ['base'] });
  const lead = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('crew-lead'), crewRole: 'master', toolsets: ['base', 'delegation'] });
  const page = await open(browser.context, `/agent/${lead.id}`);
  const select = page.getByTestId('agent-crew-members');
  await select.waitFor();
  await select.click();
  const options = page.locator('.popper-agent-crew-members .el-select-dropdown__item');
  await options.first().waitFor();
  const names = (await options.allInnerTexts()).map((s) => s.trim());
  assert.ok(names.includes(member.name), names.join(', '));
  assert.ok(!names.includes(lead.name), 'the agent is not a member of its own crew');
  await pickOption(page, 'popper-agent-crew-members', member.name);
  await page.keyboard.press('Escape');
  await page.getByTestId('agent-save').click();
  await page.locator('.el-message--success').first().waitFor();
  await expectStored(lead.id, (a) => JSON.stringify(a.crewMembers) === JSON.stringify([member.id]));
  await page.reload();
  await select.locator('.el-tag', { hasText: member.name }).waitFor();
  assert.deepEqual(browser.errors, []);
});
