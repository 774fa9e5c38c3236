// A working directory or workspace root the backend refuses (issue 25): the chat page says why, in the
// page's language, naming the path — a relative path (under its field), a root that is, lies inside or
// contains the backend's own state (`root_contains_backend_state`, the pages folder here). A folder that
// does not exist is no refusal while the fields are edited (the diagnostic describes a session), but the
// first message of a session in it is refused, and so is one in a folder the sandbox's user cannot read:
// the sentence under the field names the folder, the reason and the remedy; no session is stored and the
// message stays in its box. Without a working directory the page says why so few tools are offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { api, apiData, assertLocalizedErrors, forFile, launch, open, scriptedChannel, uniqueName } from './helpers.mjs';

const browser = forFile(launch);
// the default channel the chat page starts a session with, for this file's tests
forFile(scriptedChannel);
const here = dirname(fileURLToPath(import.meta.url));
// the backend serves the pages just built (run.mjs: STATIC_DIR)
const PAGES = resolve(here, '..', '..', 'dist');
const REPO = resolve(here, '..', '..', '..');

const cwdField = (page) => page.getByTestId('chat-fields').getByTestId('field-cwd');
const fieldError = (page, i) => page.getByTestId('chat-fields').locator('.el-form-item').nth(i).locator('.el-form-item__error');

async function chat(lang = 'zh-CN') {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('cwd'), toolsets: ['base'] });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
  await page.getByTestId('chat-channel').waitFor();
  await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
  return { agent, page };
}

/** The refusal the chat page shows for `cwd` (the alert above the offered tools). */
async function refusalOf(page, cwd) {
  await cwdField(page).fill(cwd);
  const alert = page.getByTestId('chat-fields-error');
  await alert.waitFor();
  // the sentence naming this path (not the one of the path before)
  await page.waitForFunction(
    (p) => [`「${p}」`, `“${p}”`].some((q) => document.querySelector('[data-testid=chat-fields-error]')?.textContent.includes(q)),
    cwd,
  );
  return (await alert.innerText()).trim();
}

test('a relative working directory: the sentence under the field names the path', async () => {
  const { page } = await chat();
  await cwdField(page).fill('relative/dir');
  await fieldError(page, 0).waitFor();
  assert.equal((await fieldError(page, 0).innerText()).trim(), '「工作目录 (cwd)」必须是绝对路径（以 / 开头），「relative/dir」不是。');
  await assertLocalizedErrors(page.getByTestId('chat-fields'), 'zh-CN', 'a relative cwd');
  // in English
  const en = (await chat('en')).page;
  await cwdField(en).fill('relative/dir');
  await fieldError(en, 0).waitFor();
  assert.equal((await fieldError(en, 0).innerText()).trim(), '“Working directory (cwd)” must be an absolute path (starting with /); “relative/dir” is not.');
  assert.deepEqual(browser.errors, []);
});

test('a relative extra workspace root: the sentence under the roots names it', async () => {
  const { page } = await chat();
  await cwdField(page).fill('/srv/app');
  const roots = page.getByTestId('chat-fields').getByTestId('field-roots');
  await roots.click();
  await page.keyboard.type('rel/root');
  await page.keyboard.press('Enter');
  await fieldError(page, 1).waitFor();
  assert.equal((await fieldError(page, 1).innerText()).trim(), '「额外 workspace roots」必须是绝对路径（以 / 开头），「rel/root」不是。');
  await assertLocalizedErrors(page.getByTestId('chat-fields'), 'zh-CN', 'a relative root');
  assert.deepEqual(browser.errors, []);
});

test("a root that is the backend's pages folder: root_contains_backend_state said as a sentence naming the path", async () => {
  // what the backend answers (the page words it)
  const { agent, page } = await chat();
  const r = await api('POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id, sessionCwd: PAGES });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'root_contains_backend_state');
  const text = await refusalOf(page, PAGES);
  assert.equal(
    text,
    `工作区根目录「${PAGES}」就是后端自身的页面目录（STATIC_DIR）：工作区不能触及后端的数据、页面、代码或配置（含指向它们的符号链接）。请选择其他目录。`,
  );
  await assertLocalizedErrors(page.getByTestId('chat-session-card'), 'zh-CN', 'the pages folder as cwd');
  const en = (await chat('en')).page;
  assert.equal(
    await refusalOf(en, PAGES),
    `The workspace root “${PAGES}” is the backend's own pages folder (STATIC_DIR): a workspace may not reach the backend's data, pages, code or configuration (symlinks to them included). Choose another folder.`,
  );
  assert.deepEqual(browser.errors, []);
});

test('a root inside the pages folder, and one containing it: each relation in its own words', async () => {
  const { page } = await chat();
  const inside = join(PAGES, 'assets');
  assert.equal(
    await refusalOf(page, inside),
    `工作区根目录「${inside}」位于后端自身的页面目录（STATIC_DIR）之内：工作区不能触及后端的数据、页面、代码或配置（含指向它们的符号链接）。请选择其他目录。`,
  );
  const text = await refusalOf(page, REPO);
  assert.match(text, new RegExp(`^工作区根目录「${REPO}」包含后端自身的.+：工作区不能触及后端的数据、页面、代码或配置`));
  await assertLocalizedErrors(page.getByTestId('chat-session-card'), 'zh-CN', 'a root containing the backend');
  assert.deepEqual(browser.errors, []);
});

test('a folder that does not exist yet is no refusal while editing: nothing is shown, the tools are offered', async () => {
  const { agent, page } = await chat();
  const missing = `/tmp/${uniqueName('not-yet')}/work`;
  const r = await api('POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id, sessionCwd: missing });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await cwdField(page).fill('relative/dir');
  await fieldError(page, 0).waitFor();
  await cwdField(page).fill(missing);
  await fieldError(page, 0).waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('chat-fields-error').count(), 0);
  await page.locator('[data-testid=chat-offered] [data-tool]').first().waitFor();
  assert.deepEqual(browser.errors, []);
});

/** Sends `text` in a new session of `page`'s agent and waits for the refusal under the cwd field; returns its sentence. */
async function refusedSend(page, text) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
  await fieldError(page, 0).waitFor();
  return (await fieldError(page, 0).innerText()).trim();
}

async function sessionsOf(agentId) {
  return (await apiData('GET', `/admin/netaclaw/session/page?agentId=${agentId}`)).total;
}

test('the first message in a folder that does not exist: refused under the field, naming it; no session; the message kept', async () => {
  const { agent, page } = await chat();
  const missing = `/tmp/${uniqueName('missing')}`;
  await cwdField(page).fill(missing);
  await page.locator('[data-testid=chat-offered] [data-tool=read_file]').waitFor();
  const text = await refusedSend(page, 'read notes.txt please');
  const user = process.getuid() === 0 ? 'netaclaw-sandbox' : userInfo().username;
  assert.equal(text, `工作目录「${missing}」不存在：请填写一个已存在的目录（沙箱用户 ${user} 需能读取它）。会话未创建。`);
  await assertLocalizedErrors(page.getByTestId('chat-fields'), 'zh-CN', 'a missing cwd');
  assert.equal(await page.getByTestId('chat-input').inputValue(), 'read notes.txt please', 'the message is back in its box');
  assert.equal(await sessionsOf(agent.id), 0, 'no session stored');
  assert.equal(new URL(page.url()).hash.includes('session='), false);
  assert.deepEqual(browser.errors, []);
});

test('a folder the sandbox user cannot read (the backend runs as root): give it to user netaclaw-sandbox, in zh-CN and en', {
  skip: process.getuid() !== 0 && 'the sandboxes run as the backend’s own user: no other user to refuse',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'netaclaw-e2e-private-'));
  chownSync(dir, 0, 0);
  chmodSync(dir, 0o700);
  try {
    const { agent, page } = await chat();
    await cwdField(page).fill(dir);
    await page.locator('[data-testid=chat-offered] [data-tool=read_file]').waitFor();
    assert.equal(
      await refusedSend(page, 'hello'),
      `沙箱用户 netaclaw-sandbox 无法读取工作目录「${dir}」，会话中的工具将无法访问它：请把该目录交给用户 netaclaw-sandbox（chown 或 chmod），或换一个目录。会话未创建。`,
    );
    assert.equal(await sessionsOf(agent.id), 0, 'no session stored');
    const en = (await chat('en')).page;
    await cwdField(en).fill(dir);
    await en.getByTestId('chat-fields').getByTestId('field-write').click();
    assert.match(
      await refusedSend(en, 'hello'),
      new RegExp(`^The sandbox user netaclaw-sandbox cannot read the working directory “${dir}”.*give it to user netaclaw-sandbox`),
    );
    // readable but not writable, in a session that may write
    chmodSync(dir, 0o755);
    await en.getByTestId('chat-send').click();
    await en.waitForFunction(() => /cannot write/.test(document.querySelector('[data-testid=chat-fields] .el-form-item__error')?.textContent ?? ''));
    assert.match(
      (await fieldError(en, 0).innerText()).trim(),
      new RegExp(
        `^This session may write, but the sandbox user netaclaw-sandbox cannot write the working directory “${dir}”: give it to user netaclaw-sandbox`,
      ),
    );
    assert.deepEqual(browser.errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no working directory: the page says why only the tools that touch no file are offered', async () => {
  const { page } = await chat();
  await page.getByTestId('chat-no-cwd').waitFor();
  assert.match(await page.getByTestId('chat-no-cwd').innerText(), /未填写工作目录.*todo、clarify、escalate/);
  const offered = await page.locator('[data-testid=chat-offered] [data-tool]').evaluateAll((els) => els.map((e) => e.dataset.tool));
  assert.ok(!offered.includes('read_file'), offered.join(' '));
  await cwdField(page).fill('/srv/app');
  await page.getByTestId('chat-no-cwd').waitFor({ state: 'detached' });
  await page.locator('[data-testid=chat-offered] [data-tool=read_file]').waitFor();
  assert.deepEqual(browser.errors, []);
});
