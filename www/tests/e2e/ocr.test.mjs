// The OCR follow-up of seed 001 (section 十二) and Task 17, end to end: a `vision_ocr` tool (toolset
// vision, capability vision) registered by NETACLAW_CATALOG_FILE (run.mjs starts the backend with
// fixtures/ocr-catalog.json) is synced, shown and governed on the tool page, and on the agent page it is
// dropped for an agent on a text model channel with capability_mismatch — as the backend's previewPrompt
// says — and given on a vision channel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getToolSchema, label } from '@netaclaw/tool-policy';
import { apiData, forFile, launch, open, pickOption, screenshot, serverCatalog, uniqueName, waitToolField } from './helpers.mjs';

const browser = forFile(launch);

const OCR = 'vision_ocr';
const toolRow = (page) => page.locator(`[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-${OCR}`);
const droppedRow = (page) => page.locator(`[data-testid=dropped-tools] .el-table__body-wrapper tr.dropped-row-${OCR}`);

test('a tool registered by file is in the catalog, synced, shown on the tool page and governed there', async () => {
  const catalog = await serverCatalog();
  const m = getToolSchema(OCR, catalog);
  assert.ok(m, 'vision_ocr is in the backend catalog');
  assert.equal(m.toolset, 'vision');
  assert.equal(m.capability, 'vision');
  const row = await apiData('GET', `/admin/netaclaw/tool/info?name=${OCR}`);
  assert.equal(row.toolset, 'vision');
  assert.equal(row.capability, 'vision');
  assert.equal(row.status, 1);

  const page = await open(browser.context, '/agent/tools');
  await toolRow(page).waitFor();
  assert.equal((await toolRow(page).locator('td.col-toolset').innerText()).trim(), 'vision');
  assert.equal(await toolRow(page).locator('td.col-capability [data-value]').getAttribute('data-value'), 'vision');
  assert.equal(await toolRow(page).getByTestId('orphan').count(), 0, 'a catalog tool, not an orphan');
  try {
    // governed: switched off globally on the page
    await toolRow(page).getByTestId('status-switch').click();
    await page.locator('.confirm-disable-tool').click();
    await waitToolField(OCR, 'status', 0);
    await toolRow(page).getByTestId('edit-tool').click();
    const drawer = page.getByTestId('tool-drawer');
    await drawer.getByTestId('drawer-profile').waitFor();
    assert.equal(await drawer.getByTestId('drawer-profile').locator('[data-worker-hint]').getAttribute('data-worker-hint'), 'main-process-proxy');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    // a sync keeps the admin's choice
    await page.getByTestId('tool-sync').click();
    await page.locator('.el-message--success').first().waitFor();
    assert.equal((await apiData('GET', `/admin/netaclaw/tool/info?name=${OCR}`)).status, 0);
    assert.deepEqual(browser.errors, []);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', { name: OCR, status: 1 });
  }
});

test('Task 17: dropped with capability_mismatch on a text channel, given on a vision channel, dropped again when disabled globally', async () => {
  const text = await apiData('POST', '/admin/netaclaw/channel/add', {
    name: uniqueName('text'),
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'a-text-model',
    capability: 'text',
  });
  const vision = await apiData('POST', '/admin/netaclaw/channel/add', {
    name: uniqueName('vision'),
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'a-vision-model',
    capability: 'vision',
  });
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('ocr'), toolsets: ['base', 'vision'], modelChannelId: text.id });
  try {
    // through the backend first (previewPrompt)
    const byBackend = await apiData('POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id });
    assert.deepEqual(
      byBackend.disabledReasons.find((d) => d.name === OCR),
      { name: OCR, reason: 'capability_mismatch' },
    );
    assert.equal(byBackend.toolNames.includes(OCR), false);

    const page = await open(browser.context, `/agent/${agent.id}`);
    await droppedRow(page).waitFor();
    assert.equal((await droppedRow(page).locator('.reason-tag').innerText()).trim(), label('reasons', 'capability_mismatch', 'zh-CN'));
    assert.match(await page.getByTestId('agent-channel-capability').innerText(), new RegExp(`文本.*${text.name}`));
    // 可用工具: the vision toolset brings vision_ocr
    await page.getByTestId('agent-disabled-transfer').getByTestId(`transfer-item-${OCR}`).waitFor();
    await page.getByTestId('backend-compare-btn').click();
    await page.locator('[data-testid=backend-compare][data-equal=true]').waitFor();
    await screenshot(page, 'agent-edit-ocr');

    // the vision channel: injected; saved and seen by the backend
    await page.getByTestId('agent-channel').click();
    await pickOption(page, 'popper-agent-channel', `${vision.name} · a-vision-model · 视觉`);
    await page.getByTestId('injected-tools').locator(`[data-tool=${OCR}]`).waitFor();
    await page.getByTestId('agent-save').click();
    await page.locator('.el-message--success').first().waitFor();
    assert.equal((await apiData('GET', `/admin/netaclaw/agent/info?id=${agent.id}`)).modelChannelId, vision.id);
    assert.ok((await apiData('POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id })).toolNames.includes(OCR));

    // governed: disabled globally → dropped with disabled_globally
    await apiData('POST', '/admin/netaclaw/tool/update', { name: OCR, status: 0 });
    await page.reload();
    await droppedRow(page).waitFor();
    assert.equal((await droppedRow(page).locator('.reason-tag').innerText()).trim(), label('reasons', 'disabled_globally', 'zh-CN'));
    assert.deepEqual(browser.errors, []);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', { name: OCR, status: 1 });
    await apiData('POST', '/admin/netaclaw/agent/update', { id: agent.id, modelChannelId: null });
    await apiData('POST', '/admin/netaclaw/channel/delete', { id: vision.id });
    await apiData('POST', '/admin/netaclaw/channel/delete', { id: text.id });
  }
});
