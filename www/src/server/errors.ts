// The sentences the pages show for errors, by code, in zh-CN and en. A backend error carries a code
// (docs/backend-api.md); the page shows the sentence of that code, never the backend's English message
// nor the code itself. A code that is a policy reason (a denied tool call) takes the package's label.
import { locale, t, type Locale } from '../base/i18n';
import { L, policyErrorParts } from './policy';

export { policyErrorParts };

type Sentences = Record<string, string>;

const ERRORS: Record<Locale, Sentences> = {
  'zh-CN': {
    unauthorized: '未登录或登录已失效：请重新输入管理令牌登录。',
    too_many_requests: '令牌错误次数过多，请稍后再试。',
    invalid_input: '输入不合规，请检查填写的内容。',
    not_found: '要找的记录不存在（可能已被删除）。',
    conflict: '此记录已被他人修改，请重新载入后再保存。',
    session_busy: '这个会话正在回答另一条消息，请等它结束或先取消。',
    already_answered: '这个审批已经有人回答过了（可能在另一个页面或另一台实例上），不能再次回答。',
    approval_pending: '这个会话在等你审批一个调用：请先在对话中回答它。',
    escalation_resolved: '这条升级已经有人处理过了，以先提交的处理结果为准。',
    busy: '上一条消息还在回答中，请等它结束或先取消。',
    turn_failed: '本轮对话失败。',
    model_error: '模型服务出错或无法连接，请检查模型渠道的地址、模型名和密钥。',
    model_timeout: '模型服务长时间没有响应，本轮已停止。',
    cancelled: '已取消。',
    no_model_channel: '没有可用的模型渠道，请先在「模型渠道」页面添加一个。',
    channel_in_use: '还有 Agent 在使用这个渠道，不能删除；请先让这些 Agent 改用其他渠道。',
    update_refused: '修改被拒绝。',
    payload_too_large: '提交的内容太大。',
    database_busy: '数据库繁忙，请稍后重试。',
    database_unavailable: '数据库暂时不可用，请稍后重试。',
    cors_origin_refused: '请求来自不被允许的来源页面。',
    request_key_required: '登录已失效（本页没有这次登录的请求密钥）：请重新输入管理令牌登录。',
    secret_unreadable: '保存的密钥无法解密：后端加载的密钥与加密时的不同，请检查后端的密钥配置。',
    secret_key_unavailable: '后端尚未加载解密密钥，请稍后重试。',
    session_check_failed: '暂时无法检查登录状态，请稍后重试。',
    internal_error: '服务器内部错误，请稍后重试或查看后端日志。',
    network_error: '无法连接后端服务，请检查网络或后端是否在运行。',
    bad_event: '收到的事件流数据无法读取。',
    connection_refused: '无法建立对话连接：请确认已登录、后端在运行。',
    connection_closed: '对话连接已断开，本轮没有收到结束。',
    client_error: '页面处理时出错。',
    http: '请求失败（服务器返回了错误）。',
    session_running: '这个会话正在回答消息，不能删除：请先取消本轮（或等它结束）再删除。',
    agent_running: '这个 Agent 的会话或子 Agent 批次正在运行，不能删除：请先停止它们（或等它们结束）再删除。',
    agent_in_crew: '这个 Agent 是其他 Agent 团队的成员，不能删除：请先在那些 Agent 中把它移出团队。',
  },
  en: {
    unauthorized: 'You are not logged in, or the login has expired: log in again with the admin token.',
    too_many_requests: 'Too many wrong tokens: try again later.',
    invalid_input: 'The input is not valid: check what you entered.',
    not_found: 'The record does not exist (it may have been deleted).',
    conflict: 'Someone else changed this record: reload it, then save again.',
    session_busy: 'This session is answering another message: wait for it or cancel it first.',
    already_answered: 'This approval was answered already (perhaps on another page or another instance): it cannot be answered again.',
    approval_pending: 'This session waits for you to approve a call: answer it in the conversation first.',
    escalation_resolved: 'Someone has resolved this escalation already; the first resolution stands.',
    busy: 'The previous message is still being answered: wait for it or cancel it first.',
    turn_failed: 'This turn failed.',
    model_error: 'The model service failed or cannot be reached: check the channel’s URL, model and key.',
    model_timeout: 'The model service did not answer for too long; the turn was stopped.',
    cancelled: 'Cancelled.',
    no_model_channel: 'No model channel is available: add one on the Model channels page first.',
    channel_in_use: 'Agents still use this channel, so it cannot be deleted: move them to another channel first.',
    update_refused: 'The change was refused.',
    payload_too_large: 'What you sent is too large.',
    database_busy: 'The database is busy: try again shortly.',
    database_unavailable: 'The database is unavailable for now: try again shortly.',
    cors_origin_refused: 'The request came from a page of an origin that is not allowed.',
    request_key_required: 'The login is no longer valid here (this page lacks the login’s request key): log in again with the admin token.',
    secret_unreadable: 'A stored secret cannot be decrypted: the backend’s key is not the one that encrypted it; check the backend’s key setting.',
    secret_key_unavailable: 'The backend has not loaded its decryption key yet: try again shortly.',
    session_check_failed: 'The login could not be checked for now: try again shortly.',
    internal_error: 'Internal server error: try again, or look at the backend’s log.',
    network_error: 'Cannot reach the backend: check the network or whether the backend is running.',
    bad_event: 'The event stream sent data that cannot be read.',
    connection_refused: 'The chat connection could not be opened: check that you are logged in and the backend is running.',
    connection_closed: 'The chat connection closed before the turn ended.',
    client_error: 'The page failed to handle this.',
    http: 'The request failed (the server answered with an error).',
    session_running: 'This session is answering a message, so it cannot be deleted: cancel the turn (or wait for it to end) and delete it then.',
    agent_running: 'A session or a sub-agent batch of this agent is running, so it cannot be deleted: stop it (or wait for it to end) and delete it then.',
    agent_in_crew: 'This agent is a member of the crew of other agents, so it cannot be deleted: take it out of those crews first.',
  },
};

/** Field names an `invalid_input` message starts with, as the user knows them. */
const FIELDS: Record<Locale, Sentences> = {
  'zh-CN': {
    name: '名称',
    baseUrl: 'Base URL',
    model: '模型',
    apiKey: 'API Key',
    capability: '能力',
    message: '消息',
    sessionCwd: '工作目录 (cwd)',
    workspaceRoots: '额外 workspace roots',
    systemPrompt: '系统提示词',
    toolsets: 'Toolsets',
    subagentTools: '子 Agent 允许工具',
    calls: '调用',
    arguments: '参数',
    token: '管理令牌',
    label: '展示名',
    description: '描述',
    promptHint: 'Prompt Hint',
    sort: '排序',
    extra: '扩展 (JSON)',
    skills: 'Skills',
    crewRole: 'Crew 角色',
    modelChannelId: '模型渠道',
    agentId: 'Agent',
    sessionId: '会话',
    resolution: '处理结果',
    transport: '传输方式',
    command: '命令',
    args: '参数',
    url: '地址 (URL)',
    env: '环境变量',
    enabled: '启用',
    crewMembers: 'Crew 成员',
  },
  en: {
    name: 'Name',
    baseUrl: 'Base URL',
    model: 'Model',
    apiKey: 'API key',
    capability: 'Capability',
    message: 'Message',
    sessionCwd: 'Working directory (cwd)',
    workspaceRoots: 'Extra workspace roots',
    systemPrompt: 'System prompt',
    toolsets: 'Toolsets',
    subagentTools: 'Sub-agent tools',
    calls: 'Calls',
    arguments: 'Arguments',
    token: 'Admin token',
    label: 'Label',
    description: 'Description',
    promptHint: 'Prompt hint',
    sort: 'Sort',
    extra: 'Extra (JSON)',
    skills: 'Skills',
    crewRole: 'Crew role',
    modelChannelId: 'Model channel',
    agentId: 'Agent',
    sessionId: 'Session',
    resolution: 'Resolution',
    transport: 'Transport',
    command: 'Command',
    args: 'Arguments',
    url: 'URL',
    env: 'Environment',
    enabled: 'Enabled',
    crewMembers: 'Crew members',
  },
};

const INVALID_FIELD: Record<Locale, (f: string) => string> = {
  'zh-CN': (f) => `「${f}」填写不合规，请检查后重试。`,
  en: (f) => `“${f}” is not valid: check it and try again.`,
};

/**
 * The field an `invalid_input` message names first (`sessionCwd: must be …`, `calls[0].name …`), or the
 * object it is a member of (`env.API_KEY must be …`: the environment).
 */
export function errorField(e: { code: string; message?: string }): string | null {
  if (e.code !== 'invalid_input' || !e.message) return null;
  const m = /^(?:[a-z]+\.)?([a-zA-Z]+)(?:\[\d+\])?(?:[.:\s])/.exec(e.message);
  if (m && m[1] in FIELDS.en) return m[1];
  const owner = /^([a-zA-Z]+)\./.exec(e.message);
  return owner && owner[1] in FIELDS.en ? owner[1] : null;
}

/** The sentence of an error code in the current locale (the backend's message helps name a field). */
export function errorSentence(e: { code: string; status?: number; message?: string }): string {
  const dict = ERRORS[locale.value];
  const path = pathSentence(e);
  if (path) return path;
  const skill = skillSentence(e);
  if (skill) return skill;
  const field = errorField(e);
  if (field) return INVALID_FIELD[locale.value](FIELDS[locale.value][field]);
  const crew = crewSentence(e);
  if (crew) return crew;
  if (dict[e.code]) return dict[e.code];
  const reason = L('reasons', e.code);
  if (reason && reason !== e.code) return reason;
  return dict.http;
}

const IN_CREW: Record<Locale, (names: string) => string> = {
  'zh-CN': (names) => `这个 Agent 是${names}的团队成员，不能删除：请先在这些 Agent 的编辑页中把它移出团队。`,
  en: (names) => `This agent is a member of the crew of ${names}, so it cannot be deleted: take it out of their crews on their edit pages first.`,
};

/** An agent other agents list in their crew (409 `agent_in_crew`): the sentence names them, as the backend does. */
function crewSentence(e: { code: string; message?: string }): string | null {
  if (e.code !== 'agent_in_crew') return null;
  const names = [...(e.message ?? '').matchAll(/(?:of |, )\d+ ("(?:[^"\\]|\\.)*")/g)].map((m) => quoted(m[1]));
  if (names.length === 0) return null;
  const en = locale.value === 'en';
  return IN_CREW[locale.value](names.map((n) => (en ? `“${n}”` : `「${n}」`)).join(en ? ', ' : '、'));
}

/**
 * The sentence of a refused skill of an agent, naming it as the backend does: one that is not installed
 * (`skill_not_installed`) or one chosen twice; null for any other error.
 */
function skillSentence(e: { code: string; message?: string }): string | null {
  const p = t.value.skillPicker;
  const msg = e.message ?? '';
  if (e.code === 'skill_not_installed') {
    const name = /no installed skill is named ("(?:[^"\\]|\\.)*")/.exec(msg);
    return p.notInstalledError(name ? quoted(name[1]) : '');
  }
  const twice = e.code === 'invalid_input' ? /^skills\[\d+\]: ("(?:[^"\\]|\\.)*") is listed twice$/.exec(msg) : null;
  return twice ? p.twiceError(quoted(twice[1])) : null;
}

/** A JSON-quoted path of a backend message, as it was given. */
function quoted(s: string): string {
  try {
    return String(JSON.parse(s));
  } catch {
    return s;
  }
}

/**
 * The sentence of a refused working directory or workspace root, naming the path the backend names
 * (docs/runtime.md, "Working directory and workspace roots"): a relative or empty path, one too long,
 * and a root that reaches the backend's own state (`root_contains_backend_state`); null for any other.
 */
export function pathSentence(e: { code: string; message?: string }): string | null {
  const p = t.value.pathErrors;
  const msg = e.message ?? '';
  // a new session's working directory its sandboxes could not use (`workdir_missing`, `_not_directory`,
  // `_unreadable`, `_unwritable`): the folder and the sandbox's user, as the backend names them
  const workdir = /^workdir_(missing|not_directory|unreadable|unwritable)$/.exec(e.code);
  if (workdir) {
    const dir = /the working directory ("(?:[^"\\]|\\.)*")/.exec(msg);
    const user = /user ("(?:[^"\\]|\\.)*")/.exec(msg);
    return p.workdir[workdir[1]](dir ? quoted(dir[1]) : '', user ? quoted(user[1]) : '');
  }
  if (e.code === 'root_contains_backend_state') {
    const clash = /^workspace root ("(?:[^"\\]|\\.)*") (is inside|contains|is) the backend's own (.+?): a workspace root/.exec(msg);
    if (clash) {
      const key = Object.keys(p.state).find((k) => clash[3].includes(k === 'code' ? 'code (' : k));
      const what = key ? p.state[key] : p.stateOther;
      return p.backendState(quoted(clash[1]), p.relations[clash[2]], what, p.relationTail[clash[2]]);
    }
    const unresolvable = /^workspace root ("(?:[^"\\]|\\.)*") cannot be resolved/.exec(msg);
    if (unresolvable) return p.unresolvable(quoted(unresolvable[1]));
    return t.value.errorCodes.root_contains_backend_state;
  }
  const field = errorField(e);
  if (field !== 'sessionCwd' && field !== 'workspaceRoots') return null;
  const name = FIELDS[locale.value][field];
  const relative = /must be an absolute path.*, got ("(?:[^"\\]|\\.)*")$/.exec(msg);
  if (relative) return p.relative(name, quoted(relative[1]));
  if (/must not be empty/.test(msg)) return p.empty(name);
  const long = /at most (\d+) characters/.exec(msg);
  if (long) return p.tooLong(name, long[1]);
  return null;
}

/** A package error as the page says it: the sentence of its code, naming the field its message starts with. */
export function policyError(e: unknown): string {
  return errorSentence(policyErrorParts(e));
}
