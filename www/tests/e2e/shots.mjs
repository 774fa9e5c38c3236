// `npm --prefix www run shots`: a screenshot of every page state a user meets, in zh-CN and en, at
// 1440×900, into docs/screenshots/states/<locale>/ (the README links the folder; SHOTS_DIR overrides
// it). Run by run.mjs (`--shots`) against the real backend and the scripted model, like the tests; the
// pages are driven the way a user would, and each state is waited for before it is taken.
import { test } from 'node:test';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiData, forFile, launch, notesWorkspace, open, pickOption, scriptedChannel, settled, uniqueName } from './helpers.mjs';
import { APPROVAL_RULE, MESSAGES, NOTES } from './model-script.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = process.env.SHOTS_DIR ?? resolve(here, '..', '..', '..', 'docs', 'screenshots', 'states');
const MCP_DEMO = resolve(here, '..', '..', '..', 'js', 'backend', 'examples', 'mcp-demo-server.mjs');
// the demo's Python MCP server from PyPI (scripts/setup-mcp-python.sh)
const TIME_SERVER = resolve(here, '..', '..', '..', '.tools', 'mcp-python', 'bin', 'mcp-server-time');
// the default channel the chat page starts a session with, for this file's tests (the demonstration tour
// removes it for its own shots and adds another after them)
const scripted = forFile(scriptedChannel);
const workspace = forFile(() => notesWorkspace(NOTES));

async function shot(page, lang, name) {
  const dir = join(OUT, lang);
  mkdirSync(dir, { recursive: true });
  await page
    .locator('.el-message')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => {});
  await settled(page); // transitions (drawers, dialogs) end
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

async function viewport(context) {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.setViewportSize({ width: 1440, height: 900 });
}

for (const lang of ['zh-CN', 'en']) {
  test(`every page state, ${lang}`, async () => {
    rmSync(join(OUT, lang), { recursive: true, force: true });
    const b = await launch();
    try {
      await viewport(b.context);
      // not logged in, then a wrong token
      let page = await open(b.context, '/agent/tools', { lang, login: false });
      await page.getByTestId('login-needed').waitFor();
      await page.keyboard.press('Escape');
      await shot(page, lang, '01-login-needed');
      await page.getByTestId('login-needed-btn').click();
      await page.getByTestId('token-input').fill('not-the-token');
      await page.getByTestId('login-submit').click();
      await page.getByTestId('login-dialog').locator('.el-form-item__error').waitFor();
      await shot(page, lang, '02-login-wrong-token');

      // Tool 管理
      page = await open(b.context, '/agent/tools', { lang });
      await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
      await shot(page, lang, '03-tools');
      await page.locator('[data-testid=tool-table] .el-table__body-wrapper tr.tool-row-patch').getByTestId('edit-tool').click();
      const drawer = page.getByTestId('tool-drawer');
      await drawer.getByTestId('mirror-fields').waitFor();
      await shot(page, lang, '04-tool-drawer');
      await drawer.getByTestId('drawer-field-extra').fill('{"owner": ');
      await drawer.getByTestId('drawer-save').click();
      await drawer.getByTestId('drawer-json-error').waitFor();
      await shot(page, lang, '05-tool-drawer-bad-json');

      // Agent 列表 / 编辑
      page = await open(b.context, '/agent/list', { lang });
      await page.locator('[data-testid=agent-table] tr.agent-row').first().waitFor();
      await shot(page, lang, '06-agents');
      const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
        name: lang === 'en' ? 'Research lead · crew master' : '研究主管 · Crew master',
        systemPrompt: 'You lead a small crew.',
        toolsets: ['base', 'planning', 'delegation'],
        tools: { disabled: ['bash', 'grep'] },
        crewRole: 'master',
      });
      page = await open(b.context, `/agent/${agent.id}`, { lang });
      await page.getByTestId('agent-disabled-transfer').getByTestId('transfer-item-bash').waitFor();
      await page.locator('[data-testid=preview-profile] tr.profile-row').first().waitFor();
      await shot(page, lang, '07-agent-edit');
      await page.getByTestId('session-named').click();
      await page.getByTestId('session-cwd').fill(workspace.path);
      await page.locator('[data-testid=session-routes] tr.session-route-row').first().waitFor();
      await page.getByTestId('backend-compare-btn').click();
      await page.getByTestId('backend-compare').waitFor();
      await shot(page, lang, '08-agent-edit-session-compare');
      page = await open(b.context, '/agent/new', { lang });
      await page.getByTestId('agent-edit-page').waitFor();
      await page.getByTestId('agent-save').click();
      await page.getByTestId('agent-name-item').locator('.el-form-item__error').waitFor();
      await shot(page, lang, '09-agent-new-name-required');
      // Skills: the installed ones to pick from (run.mjs installs the demo's code-review), each with what it says of itself
      await page.locator('#tab-tools').click();
      await page.getByTestId('agent-skills-installed').waitFor();
      await page.getByTestId('agent-skills').click();
      await page.locator('.popper-agent-skills .el-select-dropdown__item[data-skill=code-review]').waitFor();
      await shot(page, lang, '41-agent-skills');
      await page.keyboard.press('Escape');

      // rules: the agent's (a bad pattern refused, then the try box), the global section of Tool 管理
      const rulesTab = lang === 'en' ? /^\s*Rules\s*$/ : /^\s*规则\s*$/;
      const typeRule = async (p, editor, list, text) => {
        const rows = p.getByTestId(`${editor}-${list}-rows`);
        const n = await rows.getByTestId('rule-row').count();
        await rows.getByTestId('rule-add').click();
        await rows.getByTestId('rule-row').nth(n).getByTestId('rule-input').fill(text);
      };
      const tryIt = async (box, thing, text, root) => {
        await box.getByTestId(`try-thing-${thing}`).click();
        await box.getByTestId('try-root').fill(root);
        await box.getByTestId('try-text').fill(text);
        await box.getByTestId('try-answer').waitFor();
      };
      const { version: rulesVersion } = await apiData('GET', '/admin/netaclaw/rules/info');
      await apiData('POST', '/admin/netaclaw/rules/update', { rules: { ask: ['bash(git push:*)'], deny: ['bash(rm:*)'] }, version: rulesVersion });
      const ruled = await apiData('POST', '/admin/netaclaw/agent/add', {
        name: lang === 'en' ? 'Release helper · rules' : '发布助手 · 规则',
        toolsets: ['base'],
        rules: { allow: ['bash(git status)', 'bash(npm run test:*)'], deny: ['read(**/.env*)', 'mcp:*/delete_*'] },
      });
      page = await open(b.context, `/agent/${ruled.id}`, { lang });
      await page.getByTestId('injected-tools').locator('[data-tool=read_file]').waitFor();
      await page.getByRole('tab', { name: rulesTab }).click();
      await tryIt(page.getByTestId('agent-rules-try'), 'command', 'git status && git push origin main', '');
      await shot(page, lang, '29-agent-rules-try');
      await tryIt(page.getByTestId('agent-rules-try'), 'read', '.env', workspace.path);
      await shot(page, lang, '30-agent-rules-try-path');
      await typeRule(page, 'agent-rules-editor', 'ask', 'mail(team@example.com)'); // a kind the package does not know
      await page.getByTestId('agent-save').click();
      await page.getByTestId('agent-rules-refused').waitFor();
      await shot(page, lang, '31-agent-rules-error');
      page = await open(b.context, '/agent/tools', { lang });
      const rulesSection = page.getByTestId('global-rules');
      await rulesSection.getByTestId('global-rules-editor').waitFor();
      await tryIt(rulesSection.getByTestId('global-rules-try'), 'write', '.git/hooks/pre-commit', workspace.path);
      await rulesSection.scrollIntoViewIfNeeded();
      await shot(page, lang, '32-global-rules');
      await typeRule(page, 'global-rules-editor', 'deny', 'write(a/**b)');
      await rulesSection.getByTestId('global-rules-save').click();
      await rulesSection.getByTestId('global-rules-refused').waitFor();
      await shot(page, lang, '33-global-rules-error');
      const { version: rulesNow } = await apiData('GET', '/admin/netaclaw/rules/info');
      await apiData('POST', '/admin/netaclaw/rules/update', { rules: null, version: rulesNow });

      // 对话 · 子 Agent
      const chat = async () => {
        const p = await open(b.context, `/agent/chat?agent=${agent.id}`, { lang });
        await p.getByTestId('chat-channel').waitFor();
        await p.getByTestId('chat-offered').locator('[data-tool]').first().waitFor();
        return p;
      };
      const send = async (p, text) => {
        await p.getByTestId('chat-input').fill(text);
        await p.getByTestId('chat-send').click();
      };
      page = await chat();
      await shot(page, lang, '10-chat-new');
      await page.getByTestId('chat-fields').getByTestId('field-cwd').fill('relative/dir');
      await page.getByTestId('chat-fields').locator('.el-form-item__error').waitFor();
      await shot(page, lang, '11-chat-cwd-error');
      // a working directory the backend refuses: its own pages folder (root_contains_backend_state)
      await page
        .getByTestId('chat-fields')
        .getByTestId('field-cwd')
        .fill(resolve(here, '..', '..', 'dist'));
      await page.getByTestId('chat-fields-error').waitFor();
      await shot(page, lang, '11b-chat-cwd-backend-state');
      await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
      await page.getByTestId('chat-fields').locator('.el-form-item__error').waitFor({ state: 'detached' });
      await send(page, MESSAGES.read);
      await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'notes.txt says:' }).waitFor();
      await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
      await shot(page, lang, '12-chat-tool-calls');
      await send(page, MESSAGES.delegate);
      await page.getByTestId('chat-batches').locator('[data-testid=batch-card][data-status=running]').waitFor();
      await shot(page, lang, '13-chat-batch-running');
      await page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'The sub-agent reported:' }).waitFor();
      await page.getByTestId('chat-batches').locator('[data-testid=batch-card][data-status=completed][data-live=false]').waitFor();
      await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
      await shot(page, lang, '14-chat-batch-done');
      const chatAddress = page.url().slice(page.url().indexOf('#') + 1);
      await send(page, MESSAGES.slow);
      await page.getByTestId('chat-cancel').click();
      await page.getByTestId('msg-cancelled').waitFor();
      await shot(page, lang, '15-chat-cancelled');
      const long = Array.from({ length: 300 }, (_, i) => `line ${i + 1} of a long message`).join('\n');
      await send(page, long);
      await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
      await page.getByTestId('chat-input').fill('字'.repeat(70_000));
      await page.getByTestId('chat-too-long').waitFor();
      await shot(page, lang, '16-chat-long-message');
      await page.getByTestId('chat-input').fill('');
      const con = page.getByTestId('batch-console');
      await con.getByTestId('console-call').first().getByTestId('console-call-name').click();
      await pickOption(page, 'popper-console-call-0', 'read_file');
      await con.getByTestId('console-call').first().getByTestId('console-call-args').fill('{ "path": ');
      await con.getByTestId('console-run').click();
      await con.getByTestId('console-error').waitFor();
      await con.scrollIntoViewIfNeeded();
      await shot(page, lang, '17-batch-console-bad-json');

      // 模型渠道
      page = await open(b.context, '/agent/channels', { lang });
      await page.getByTestId('channel-table').waitFor();
      await shot(page, lang, '18-channels');
      await page.getByTestId('channel-add').click();
      await page.getByTestId('channel-dialog').getByTestId('channel-base-url').fill('api.example.com');
      await page.getByTestId('channel-dialog').getByTestId('channel-save').click();
      await page.getByTestId('channel-dialog').locator('.el-form-item__error').first().waitFor();
      await shot(page, lang, '19-channel-dialog-errors');
      await page.keyboard.press('Escape');
      const other = await apiData('POST', '/admin/netaclaw/channel/add', {
        name: uniqueName('in-use'),
        baseUrl: 'https://api.example.com/v1',
        model: 'example-model',
      });
      const user = await apiData('POST', '/admin/netaclaw/agent/add', { name: uniqueName('user'), toolsets: ['base'], modelChannelId: other.id });
      page = await open(b.context, '/agent/channels', { lang });
      const row = page.locator(`[data-testid=channel-table] .el-table__body-wrapper tr.channel-row-${other.id}`);
      await row.getByTestId('channel-delete').click();
      await page.locator('.el-popconfirm__action .el-button--primary').last().click();
      await page.getByTestId('channel-action-error').waitFor();
      await shot(page, lang, '20-channel-in-use');
      await apiData('POST', '/admin/netaclaw/agent/update', { id: user.id, modelChannelId: null });
      await apiData('POST', '/admin/netaclaw/channel/delete', { id: other.id });

      // the panel beside the transcript: the agent's todos and an open escalation, the resolve dialog
      // refusing an empty resolution, the escalation resolved
      page = await chat();
      await page.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
      await send(page, MESSAGES.panels);
      await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
      const panel = page.getByTestId('chat-panel');
      await panel.locator('[data-testid=chat-escalation][data-status=open]').waitFor();
      await panel.getByTestId('chat-todo').first().waitFor();
      await shot(page, lang, '21-chat-todos-escalation');
      await panel.getByTestId('chat-escalation-resolve').click();
      const resolveDialog = page.getByTestId('resolve-dialog');
      await resolveDialog.getByTestId('resolve-save').click();
      await resolveDialog.getByTestId('resolve-item').locator('.el-form-item__error').waitFor();
      await shot(page, lang, '22-chat-resolve-required');
      await resolveDialog.getByTestId('resolve-text').fill(lang === 'en' ? 'The key is in the vault now.' : '签名密钥已放进保险库。');
      await resolveDialog.getByTestId('resolve-save').click();
      await panel.locator('[data-testid=chat-escalation][data-status=resolved]').waitFor();
      await shot(page, lang, '23-chat-escalation-resolved');
      const panelAddress = page.url().slice(page.url().indexOf('#') + 1);
      // the agent's question (clarify): the turn waits, the message box asks for the answer
      const asking = await chat();
      await asking.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
      await send(asking, MESSAGES.clarify);
      await asking.getByTestId('chat-pending-question').waitFor();
      await shot(asking, lang, '28-chat-question');
      await asking.close();
      // a call the agent's rule asks about: the approval card (the command, the rule and its level, three answers)
      const careful = await apiData('POST', '/admin/netaclaw/agent/add', {
        name: uniqueName(lang === 'en' ? 'careful' : '审慎'),
        toolsets: ['base'],
        rules: { ask: [APPROVAL_RULE] },
      });
      const approving = await open(b.context, `/agent/chat?agent=${careful.id}`, { lang });
      await approving.setViewportSize({ width: 1440, height: 900 });
      await approving.getByTestId('chat-channel').waitFor();
      const approvalFields = approving.getByTestId('chat-fields');
      await approvalFields.getByTestId('field-cwd').fill(workspace.path);
      await approvalFields.getByTestId('field-shell').click();
      await approvalFields.getByTestId('field-write').click();
      await send(approving, MESSAGES.approval);
      await approving.getByTestId('chat-approval').waitFor();
      await shot(approving, lang, '29-chat-approval');
      await approving.close();
      // Tool 管理 → MCP 服务器: the SDK-built demo server connected, an unreachable one failed; the dialog
      const demo = await apiData('POST', '/admin/netaclaw/mcp/add', {
        name: `demo-${lang === 'en' ? 'en' : 'zh'}`,
        transport: 'stdio',
        command: 'node',
        args: [MCP_DEMO],
        env: { DEMO_TOKEN: 'sk-shots-secret-0123456789' },
      });
      const gone = await apiData('POST', '/admin/netaclaw/mcp/add', {
        name: `gone-${lang === 'en' ? 'en' : 'zh'}`,
        transport: 'http',
        url: 'http://127.0.0.1:9/mcp',
      });
      page = await open(b.context, '/agent/tools?tab=mcp', { lang });
      const mcp = page.getByTestId('mcp-section');
      await mcp.locator(`tr.mcp-row-${demo.name} [data-role=state][data-status=pending]`).waitFor();
      await shot(page, lang, '24-mcp-servers-pending');
      await mcp.getByTestId('mcp-refresh').click();
      await mcp.locator(`tr.mcp-row-${demo.name} [data-role=state][data-status=connected]`).waitFor({ timeout: 60_000 });
      await mcp.locator(`tr.mcp-row-${gone.name} [data-role=state][data-status=failed]`).waitFor();
      await shot(page, lang, '25-mcp-servers-refreshed');
      await mcp.getByTestId('mcp-add').click();
      await page.getByTestId('mcp-dialog').getByTestId('mcp-save').click();
      await page.getByTestId('mcp-dialog').locator('.el-form-item__error').first().waitFor();
      await shot(page, lang, '26-mcp-dialog-errors');
      await page.keyboard.press('Escape');
      await page.getByTestId('mcp-dialog').waitFor({ state: 'hidden' });
      await mcp.locator(`tr.mcp-row-${demo.name}`).getByTestId('mcp-edit').click();
      await page.getByTestId('mcp-dialog').getByTestId('mcp-env-row').waitFor();
      await shot(page, lang, '27-mcp-dialog-edit');
      await page.keyboard.press('Escape');
      for (const s of [demo, gone]) await apiData('POST', '/admin/netaclaw/mcp/delete', { id: s.id });
      await apiData('POST', '/admin/netaclaw/mcp/refresh', {});

      // a stdio server that is down (its process exits as it starts): when it starts again, its restarts,
      // its last stderr lines; the dialog's path marks
      const down = await apiData('POST', '/admin/netaclaw/mcp/add', {
        name: `down-${lang === 'en' ? 'en' : 'zh'}`,
        transport: 'stdio',
        command: 'node',
        args: ['-e', "process.stderr.write('reading /etc/notes/config.toml\\nerror: the configuration is broken\\n'); process.exit(2)"],
        pathMarks: { read_note: { file: 'read' }, save_note: { target: 'write' } },
      });
      page = await open(b.context, '/agent/tools?tab=mcp', { lang });
      const downRow = page.getByTestId('mcp-section').locator(`tr.mcp-row-${down.name}`);
      await page.getByTestId('mcp-section').getByTestId('mcp-refresh').click();
      await downRow.getByTestId('mcp-restarts').waitFor({ timeout: 60_000 });
      await downRow.getByTestId('mcp-stderr').locator('summary').click();
      await downRow.scrollIntoViewIfNeeded();
      await shot(page, lang, '34-mcp-server-down');
      await downRow.getByTestId('mcp-edit').click();
      await page.getByTestId('mcp-dialog').getByTestId('mcp-mark-row').nth(1).waitFor();
      await shot(page, lang, '35-mcp-dialog-path-marks');
      await page.keyboard.press('Escape');
      await apiData('POST', '/admin/netaclaw/mcp/delete', { id: down.id });

      // the Python MCP server from PyPI (mcp-server-time in the project's venv) called from the chat
      const time = await apiData('POST', '/admin/netaclaw/mcp/add', {
        name: `time-${lang === 'en' ? 'en' : 'zh'}`,
        transport: 'stdio',
        command: TIME_SERVER,
        args: ['--local-timezone=UTC'],
      });
      await apiData('POST', '/admin/netaclaw/mcp/refresh', {});
      const clock = await apiData('POST', '/admin/netaclaw/agent/add', { name: lang === 'en' ? 'Clock' : '时钟', toolsets: ['base', `mcp:${time.name}`] });
      const timing = await open(b.context, `/agent/chat?agent=${clock.id}`, { lang });
      await timing.getByTestId('chat-offered').locator(`[data-tool=mcp__${time.name}__get_current_time]`).waitFor();
      await timing.getByTestId('chat-fields').getByTestId('field-cwd').fill(workspace.path);
      await send(timing, MESSAGES.time);
      await timing.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'it is 2' }).waitFor({ timeout: 60_000 });
      await timing.getByTestId('chat-answering').waitFor({ state: 'detached' });
      await shot(timing, lang, '36-chat-mcp-python');
      await apiData('POST', '/admin/netaclaw/mcp/delete', { id: time.id });
      await apiData('POST', '/admin/netaclaw/mcp/refresh', {});

      // the narrowest and the widest screens the pages are made for
      for (const width of [1280, 1920]) {
        const p = b.context.pages()[0];
        await p.setViewportSize({ width, height: 900 });
        page = await open(b.context, '/agent/tools', { lang });
        await page.locator('[data-testid=tool-table] tr.tool-row-bash').first().waitFor();
        await shot(page, lang, `${width}-tools`);
        page = await open(b.context, '/agent/channels', { lang });
        await page.locator('[data-testid=channel-table] .el-table__body-wrapper tr').first().waitFor();
        await shot(page, lang, `${width}-channels`);
        page = await open(b.context, `/agent/${agent.id}`, { lang });
        await page.getByTestId('agent-disabled-transfer').getByTestId('transfer-item-bash').waitFor();
        await page.locator('[data-testid=preview-profile] tr.profile-row').first().waitFor();
        await shot(page, lang, `${width}-agent-edit`);
        page = await open(b.context, chatAddress, { lang });
        await page.getByTestId('chat-batches').locator('[data-testid=batch-card]').first().waitFor();
        await shot(page, lang, `${width}-chat`);
        page = await open(b.context, panelAddress, { lang });
        await page.getByTestId('chat-panel').locator('[data-testid=chat-escalation]').first().waitFor();
        await shot(page, lang, `${width}-chat-panel`);
      }

      // a new session's folder that does not exist: refused when its first message is sent, the message kept
      page = await open(b.context, `/agent/chat?agent=${agent.id}`, { lang });
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.getByTestId('chat-offered').locator('[data-tool]').first().waitFor();
      await page
        .getByTestId('chat-fields')
        .getByTestId('field-cwd')
        .fill(`/tmp/${uniqueName('missing')}`);
      await send(page, MESSAGES.read);
      await page.getByTestId('chat-fields').locator('.el-form-item__error').waitFor();
      await shot(page, lang, '40-chat-workdir-missing');

      // a phone (390 px): the chat over the whole width, the menu drawer, the login box
      await page.setViewportSize({ width: 390, height: 844 });
      page = await open(b.context, chatAddress, { lang });
      await page.getByTestId('chat-batches').locator('[data-testid=batch-card]').first().waitFor();
      await shot(page, lang, '390-chat');
      await page.getByTestId('open-menu').click();
      await page.getByTestId('menu-drawer').getByTestId('menu-tools').waitFor();
      await shot(page, lang, '390-menu');
      await page.keyboard.press('Escape');
      await page.getByTestId('menu-drawer').waitFor({ state: 'hidden' });
      await page.getByTestId('open-login').click();
      await page.getByTestId('token-input').waitFor();
      await shot(page, lang, '390-login');
      await page.setViewportSize({ width: 1440, height: 900 });
    } finally {
      await b.close();
    }
  });
}

// The demonstration tour: no model channel, so the demonstration model answers (run.mjs turns it on, as the
// demo does), on the demo's crew master — its suggested prompts, each through the real runtime.
const MASTER = '示例 · Crew master（委派）';
for (const lang of ['zh-CN', 'en']) {
  test(`the demonstration tour, ${lang}`, async () => {
    await scripted.remove();
    const b = await launch();
    try {
      await viewport(b.context);
      const master = (await apiData('POST', '/admin/netaclaw/agent/page', { size: 100 })).list.find((a) => a.name === MASTER);
      const tour = async (shell = false) => {
        const p = await open(b.context, `/agent/chat?agent=${master.id}`, { lang });
        await p.getByTestId('chat-demo-model').waitFor();
        const fields = p.getByTestId('chat-fields');
        await fields.getByTestId('field-cwd').fill(workspace.path);
        if (shell) await fields.getByTestId('field-shell').click();
        await p
          .getByTestId('chat-offered')
          .locator(`[data-tool=${shell ? 'bash' : 'read_file'}]`)
          .waitFor();
        return p;
      };
      // a suggested prompt, then what it leads to, then the end of the turn
      const prompt = async (p, step, shows) => {
        await p.locator(`[data-testid=demo-prompt][data-step=${step}]`).click();
        await p.locator(shows).first().waitFor();
        await p.getByTestId('chat-answering').waitFor({ state: 'detached' });
      };
      let page = await tour();
      await prompt(page, 'read', '[data-testid=tool-card][data-tool=read_file][data-state=ok]');
      await prompt(page, 'write', '[data-testid=tool-card][data-tool=write_file][data-state=refused]');
      await shot(page, lang, '37-chat-demo-tour');
      page = await tour();
      await prompt(page, 'delegate', '[data-testid=chat-batches] [data-testid=batch-card][data-status=completed][data-live=false]');
      await shot(page, lang, '38-chat-demo-delegate');
      page = await tour(true);
      await prompt(page, 'approval', '[data-testid=chat-approval]');
      await shot(page, lang, '39-chat-demo-approval');
    } finally {
      await b.close();
      Object.assign(scripted, await scriptedChannel());
    }
  });
}
