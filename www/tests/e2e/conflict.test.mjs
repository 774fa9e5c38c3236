// Two admins edit the same record: the page saves with the version it loaded; when someone else saved
// in between, the backend answers 409 conflict, nothing is written, and the page shows the current
// values and loads them into its form (the agent page keeps what the user changed and shows both
// versions of a field changed on both sides). Saving again from there works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData, forFile, launch, open, screenshot, uniqueName } from './helpers.mjs';

const browser = forFile(launch);

test('tool drawer: a save over a colleague’s newer save is refused, the current values are shown and loaded', async () => {
  const original = await apiData('GET', '/admin/netaclaw/tool/info?name=list_dir');
  try {
    const page = await open(browser.context, '/agent/tools');
    const row = page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-list_dir');
    await row.waitFor();
    await row.getByTestId('edit-tool').click();
    const drawer = page.getByTestId('tool-drawer');
    await drawer.getByTestId('drawer-field-label').waitFor();

    // meanwhile, another admin saves the same tool
    const theirs = { label: uniqueName('theirs'), description: 'changed by a colleague' };
    const saved = await apiData('POST', '/admin/netaclaw/tool/update', { name: 'list_dir', ...theirs });
    assert.equal(saved.version, original.version + 1);

    await drawer.getByTestId('drawer-field-label').fill('mine');
    await drawer.getByTestId('drawer-save').click();
    const alert = drawer.getByTestId('drawer-conflict');
    await alert.waitFor();
    assert.equal(await alert.getAttribute('data-version'), String(saved.version));
    assert.equal((await alert.locator('li[data-field=label] [data-role=value]').innerText()).trim(), theirs.label);
    assert.equal((await alert.locator('li[data-field=description] [data-role=value]').innerText()).trim(), theirs.description);
    assert.equal(await drawer.getByTestId('drawer-field-label').inputValue(), theirs.label, 'the form holds the current values');
    assert.equal(await drawer.getByTestId('drawer-field-description').inputValue(), theirs.description);
    await screenshot(page, 'tools-conflict');
    const stored = await apiData('GET', '/admin/netaclaw/tool/info?name=list_dir');
    assert.equal(stored.label, theirs.label, 'nothing written');
    assert.equal(stored.version, saved.version);

    // edit again on top of the current values and save: accepted
    await drawer.getByTestId('drawer-field-label').fill('mine');
    await drawer.getByTestId('drawer-save').click();
    await drawer.waitFor({ state: 'hidden' });
    const after = await apiData('GET', '/admin/netaclaw/tool/info?name=list_dir');
    assert.equal(after.label, 'mine');
    assert.equal(after.description, theirs.description, 'the colleague’s description is kept');
    assert.equal(after.version, saved.version + 1);
    assert.deepEqual(browser.errors, []);
  } finally {
    await apiData('POST', '/admin/netaclaw/tool/update', { id: original.id, label: original.label, description: original.description });
  }
});

test('agent edit page: the same for an agent', async () => {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('conflict'), systemPrompt: 'first', toolsets: ['base'] });
  const page = await open(browser.context, `/agent/${agent.id}`);
  await page.getByTestId('injected-tools').locator('[data-tool=read_file]').waitFor();
  await page.getByRole('tab', { name: /基本信息/ }).click();
  await page.getByTestId('agent-name').waitFor();
  assert.equal(await page.getByTestId('agent-name').inputValue(), agent.name);

  // meanwhile, another admin saves the same agent
  const theirs = await apiData('POST', '/admin/netaclaw/agent/update', { id: agent.id, systemPrompt: 'changed by a colleague', toolsets: ['base', 'memory'] });
  assert.equal(theirs.version, agent.version + 1);

  // the user changes the name and the system prompt: the colleague changed the prompt too (and the toolsets)
  const myName = `${agent.name}-mine`;
  await page.getByTestId('agent-name').fill(myName);
  await page.getByTestId('agent-system-prompt').fill('my own prompt');
  await page.getByTestId('agent-save').click();
  const alert = page.getByTestId('agent-conflict');
  await alert.waitFor();
  assert.equal(await alert.getAttribute('data-version'), String(theirs.version));
  // both versions of a field changed on both sides; the colleague's value of one only they changed
  assert.equal((await alert.locator('li[data-field=systemPrompt] [data-role=value]').innerText()).trim(), 'changed by a colleague');
  assert.equal((await alert.locator('li[data-field=systemPrompt] [data-role=mine]').innerText()).trim(), 'my own prompt');
  assert.equal((await alert.locator('li[data-field=toolsets] [data-role=value]').innerText()).trim(), JSON.stringify(['base', 'memory']));
  assert.equal(await alert.locator('li[data-field=toolsets] [data-role=mine]').count(), 0);
  // the form keeps what the user typed, and takes the rest as it is now
  assert.equal(await page.getByTestId('agent-name').inputValue(), myName, 'the user’s name is kept');
  assert.equal(await page.getByTestId('agent-system-prompt').inputValue(), 'my own prompt', 'the user’s prompt is kept');
  await screenshot(page, 'agent-conflict');
  const stored = await apiData('GET', `/admin/netaclaw/agent/info?id=${agent.id}`);
  assert.deepEqual(stored, theirs, 'nothing written');

  // saved again: the user's fields, the colleague's toolsets
  await page.getByTestId('agent-save').click();
  await page.locator('.el-message--success').first().waitFor();
  const after = await apiData('GET', `/admin/netaclaw/agent/info?id=${agent.id}`);
  assert.equal(after.name, myName);
  assert.equal(after.systemPrompt, 'my own prompt');
  assert.deepEqual(after.toolsets, ['base', 'memory']);
  assert.equal(after.version, theirs.version + 1);
  assert.equal(await page.getByTestId('agent-conflict').count(), 0, 'the notice goes once saved');
  assert.deepEqual(browser.errors, []);
});
