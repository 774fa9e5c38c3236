// Agent 编辑 → 工具配置: a setting changes the reason label; save and reopen restores every field;
// the preview computed in the browser equals the backend's previewPrompt and diagnostic.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { label } from '@netaclaw/tool-policy';
import { apiData, canonical, launch, open, pickOption, screenshot, switchLocale, uniqueName } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function droppedReason(page, tool) {
  const row = page.locator(`[data-testid=dropped-tools] .el-table__body-wrapper tr.dropped-row-${tool}`);
  if ((await row.count()) === 0) return null;
  return (await row.locator('.reason-tag').innerText()).trim();
}

test('disabling bash for an agent shows disabled_by_agent, in zh-CN then en; save and reopen restores', async () => {
  const name = uniqueName('edit');
  const page = await open(browser.context, '/agents/new');
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
  await pickOption(page, 'popper-agent-capability', 'vision');
  await page.getByTestId('agent-memory').click();
  const skills = page.getByTestId('agent-skills');
  await skills.click();
  await page.keyboard.type('code-review');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.getByTestId('crew-master').click();

  // switch to en → the en label
  await switchLocale(page, 'en');
  await page.getByText(label('reasons', 'disabled_by_agent', 'en')).first().waitFor();
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'en'));
  assert.notEqual(label('reasons', 'disabled_by_agent', 'en'), label('reasons', 'disabled_by_agent', 'zh-CN'));
  await screenshot(page, 'agent-edit-en');
  await switchLocale(page, 'zh-CN');
  assert.equal(await droppedReason(page, 'bash'), label('reasons', 'disabled_by_agent', 'zh-CN'));

  // save → the page becomes /agents/:id, loaded back from the backend
  await page.getByTestId('agent-save').click();
  await page.waitForURL(/#\/agents\/\d+$/);
  const id = Number(page.url().match(/#\/agents\/(\d+)$/)[1]);
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
  assert.deepEqual(tsTags.map((s) => s.trim()), ['base', 'planning', 'memory', 'vision']);
  assert.equal(await page.getByTestId('agent-toolsets-default').locator('input').isChecked(), false);
  await transferRight(page, ['bash']);
  assert.equal((await page.getByTestId('agent-capability').innerText()).trim(), 'vision');
  assert.equal(await page.getByTestId('agent-memory').locator('input').isChecked(), true);
  assert.deepEqual((await page.getByTestId('agent-skills').locator('.el-tag').allInnerTexts()).map((s) => s.trim()), ['code-review']);
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
  assert.deepEqual(items.map((s) => s.trim()), names);
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
      skills: ['s1'],
      crewRole: 'sub',
    });
    const page = await open(browser.context, `/agents/${agent.id}`);
    await page.getByTestId('agent-edit-page').waitFor();
    const pre = page.getByTestId('preview-json');
    await page.waitForFunction(() => document.querySelector('[data-testid=preview-json]')?.textContent?.trim().length > 0);
    await page.getByTestId('injected-tools').locator('[data-tool=patch]').waitFor();
    const computed = JSON.parse(await pre.textContent());

    const prompt = await apiData('POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id });
    const diagnostic = await apiData('POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id });
    const { layers, systemPrompt: _joined, channel: _channel, ...resolvedFromBackend } = prompt;
    assert.equal(canonical(computed.resolved), canonical(resolvedFromBackend));
    assert.equal(computed.guidance, layers.find((l) => l.key === 'tools').content);
    assert.equal(layers.find((l) => l.key === 'identity').content, `Your name is ${name}.\nidentity layer`);
    assert.equal(canonical(computed.diagnostic), canonical(diagnostic));
    // and it is not trivially equal: the hint, the unknown names and the core warning are in it
    assert.equal(computed.resolved.toolPromptHints.patch, 'Prefer small unified diffs.');
    assert.match(computed.guidance, /- patch: Prefer small unified diffs\./);
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
