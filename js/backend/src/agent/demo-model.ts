/**
 * The demonstration model: what an agent without a model channel converses with when the backend runs
 * with `NETACLAW_DEMO_MODEL=1` (the demo). It stands where the model service stands — `streamTurn` hands
 * it the same request (the messages and the offered tools) and it answers the same turn (text streamed
 * as deltas, tool calls) — so everything after it is the real runtime: the package decides each call,
 * the sandbox runs it, denials, delegations, questions and approvals happen as they would with a real
 * model. It only chooses what to call, from a short script: read a file, try to write one, delegate, ask
 * the user, run a command a rule asks about; anything else is answered with what it can show.
 */
import { randomUUID } from 'node:crypto';
import { policy } from '../wire/policy';
import { RUNTIME_REASONS } from '../runtime/codes';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/** A turn as `streamTurn` answers it (its `ModelTurn`; model.ts imports this file, so the shape is said here). */
interface DemoTurn {
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
  cut: boolean;
}

/** The command the tour runs to show an approval: the demo's crew master asks about `curl` (scripts/demo/agents.json). */
export const DEMO_APPROVAL_COMMAND = 'curl -sI https://example.com';

/** The file the tour tries to write (denied in a session that may not write). */
export const DEMO_WRITE_PATH = 'demo-note.txt';

type Locale = 'zh-CN' | 'en';
type Intent = 'read' | 'write' | 'delegate' | 'ask' | 'approval';

/** The suggested prompts (the chat page shows the same ones): each leads to one step of the tour. */
export const DEMO_PROMPTS: Record<Locale, Record<Intent, string>> = {
  'zh-CN': {
    read: '读一个文件',
    write: '试着写一个文件',
    delegate: '委派一个任务',
    ask: '问我一个问题',
    approval: '运行一个需要审批的命令',
  },
  en: {
    read: 'Read a file',
    write: 'Try to write a file',
    delegate: 'Delegate a task',
    ask: 'Ask me a question',
    approval: 'Run a command that needs approval',
  },
};

/** The words that choose a step, in both languages (the first that matches wins: "写一个文件" is a write). */
const INTENTS: [Intent, RegExp][] = [
  ['approval', /approv|command|审批|批准|命令/i],
  ['delegate', /delegat|crew|委派|委托|子\s*agent/i],
  ['ask', /ask me|question|clarif|问我|提问|问题/i],
  ['write', /writ|edit|写|修改/i],
  ['read', /read|file|读|文件|查看/i],
];

function intentOf(text: string): Intent | null {
  for (const [intent, re] of INTENTS) if (re.test(text)) return intent;
  return null;
}

function localeOf(text: string): Locale {
  return /[\u3400-\u9fff]/.test(text) ? 'zh-CN' : 'en';
}

function textOf(m: ChatCompletionMessageParam | undefined): string {
  const c = m?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(p => ('text' in p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

type AssistantCalls = { id: string; function: { name: string; arguments: string } }[];

function callsOf(m: ChatCompletionMessageParam | undefined): AssistantCalls {
  return m && m.role === 'assistant' && Array.isArray(m.tool_calls) ? (m.tool_calls as AssistantCalls) : [];
}

/** What the current turn did so far: its tool calls with their results, in order. */
interface Done {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** A tool result as the port wrote it (`resultText`): denied, failed, or the output. */
function outcome(result: string): { kind: 'denied'; code: string; text: string } | { kind: 'failed'; text: string } | { kind: 'ok'; text: string } {
  const denied = /^Tool call denied \(([^)]+)\): ?([\s\S]*)$/.exec(result);
  if (denied) return { kind: 'denied', code: denied[1], text: denied[2] };
  const failed = /^Tool call failed: ?([\s\S]*)$/.exec(result);
  if (failed) return { kind: 'failed', text: failed[1] };
  return { kind: 'ok', text: result };
}

/** The package's sentence for a reason code in the locale (the code when it has none). */
function reasonSentence(code: string, locale: Locale): string {
  try {
    return policy().label('reasons', code, locale);
  } catch {
    return code;
  }
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}

/** A tool's output quoted in the reply (the chat shows replies as plain text). */
function quoted(text: string): string {
  return clip(text, 1200);
}

/** A file to read from a `list_dir` listing (`name  size` lines): a small text file first. */
function fileToRead(listing: string): string | null {
  const files = listing
    .split('\n')
    .map(l => /^(.+?) {2}(\d+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(m => ({ name: m[1], size: Number(m[2]) }))
    .filter(f => f.size > 0 && f.size <= 256 * 1024);
  const texty = files.find(f => /\.(md|txt|json|ya?ml|toml|js|ts|py|rs|sh|html|css)$/i.test(f.name) || /^readme/i.test(f.name));
  return (texty ?? files[0])?.name ?? null;
}

/** The crew named by the system prompt ("Your crew: …" then one `- name: what it does` a line). */
function crewOf(system: string): string[] {
  const lines = system.split('\n');
  const start = lines.findIndex(l => l.startsWith('Your crew:'));
  if (start < 0) return [];
  const names: string[] = [];
  for (const l of lines.slice(start + 1)) {
    const m = /^- (.+?)(?::\s|$)/.exec(l);
    if (!m) break;
    names.push(m[1]);
  }
  return names;
}

type Step = { text: string; calls?: { name: string; args: Record<string, unknown> }[] };

const say = (locale: Locale, zh: string, en: string) => (locale === 'zh-CN' ? zh : en);

/** What the demonstration model can show, with the prompts that show it. */
function menu(locale: Locale, offered: Set<string>): string {
  const p = DEMO_PROMPTS[locale];
  const lines = [
    say(
      locale,
      '我是内置的演示模型：没有配置模型渠道时由它来对话。它只决定调用哪个工具，每个调用都由策略包判定、在真实的沙箱里运行。试试这些：',
      'I am the built-in demonstration model: it converses when no model channel is configured. It only chooses which tool to call; every call is decided by the policy package and runs in the real sandbox. Try these:'
    ),
    `- 「${p.read}」 — ${say(locale, '一次被允许的读取（read_file，会话文件夹里的文件）', 'an allowed read (read_file of a file in the session folder)')}`,
    `- 「${p.write}」 — ${say(locale, '一次被拒绝的写入及其原因（只读会话中的 write_file）', 'a denied write and its reason (write_file in a read-only session)')}`,
    `- 「${p.delegate}」 — ${say(locale, 'Crew master 把任务委派给成员，子 Agent 批次运行', 'a crew master delegates to a member and its sub-agent batch runs')}`,
    `- 「${p.ask}」 — ${say(locale, 'Agent 向你提问（clarify），等你回答', 'the agent asks you a question (clarify) and waits for the answer')}`,
    `- 「${p.approval}」 — ${say(locale, '规则要求审批的命令（bash），等你批准', 'a command a rule asks about (bash) waits for your approval')}`,
    '',
    say(
      locale,
      '先在会话字段里选一个工作目录；委派和审批请选择「示例 · Crew master（委派）」，审批还需要勾选允许 Shell。配置真实模型：在「模型渠道」页面添加一个渠道，或设置 NETACLAW_MODEL_BASE_URL、NETACLAW_MODEL（和 NETACLAW_MODEL_API_KEY）后重启。',
      'Choose a working directory in the session fields first; for delegation and approval pick “示例 · Crew master（委派）”, and allow shell commands for the approval. To use a real model, add a channel on the Model channels page, or set NETACLAW_MODEL_BASE_URL and NETACLAW_MODEL (and NETACLAW_MODEL_API_KEY) and restart.'
    ),
  ];
  void offered;
  return lines.join('\n');
}

/** Why a step cannot be shown in this session: the tool it needs was not offered. */
function notOffered(locale: Locale, tool: string, how: { zh: string; en: string }): Step {
  return {
    text: say(
      locale,
      `这个会话没有向我提供 ${tool}，所以这一步演示不了：${how.zh}`,
      `This session does not offer me ${tool}, so I cannot show this step: ${how.en}`
    ),
  };
}

const NEEDS_FOLDER = {
  zh: '它需要一个工作目录。请新建会话并在会话字段里选一个文件夹，再试一次。',
  en: 'it needs a working directory. Start a new session with a folder in the session fields and try again.',
};

/** The next step of the current turn: from the user's request and what the turn did so far. */
function nextStep(messages: ChatCompletionMessageParam[], offered: Set<string>): Step {
  const system = textOf(messages.find(m => m.role === 'system'));
  const lastUser = messages.map(m => m.role).lastIndexOf('user');
  const request = textOf(messages[lastUser]);
  // the calls of this turn (after the user's message) and their results
  const done: Done[] = [];
  for (const m of messages.slice(lastUser + 1)) {
    for (const c of callsOf(m)) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(c.function.arguments || '{}');
      } catch {
        /* kept empty */
      }
      const result = messages.find(r => r.role === 'tool' && r.tool_call_id === c.id);
      done.push({ name: c.function.name, args, result: textOf(result) });
    }
  }
  // the user's message answers a question the turn before asked (clarify): the answer is acknowledged
  let before = lastUser - 1;
  while (before > 0 && messages[before].role === 'tool') before--;
  const asked = callsOf(messages[before]).find(c => c.function.name === 'clarify');
  if (asked && done.length === 0) {
    const earlier = messages
      .slice(0, before)
      .map(m => m.role)
      .lastIndexOf('user');
    const locale = localeOf(request) === 'zh-CN' || localeOf(textOf(messages[earlier])) === 'zh-CN' ? 'zh-CN' : 'en';
    return {
      text: say(
        locale,
        `你回答了：「${clip(request, 200)}」。这就是 clarify：我的提问让这一轮停下来，你的下一条消息就是它的答案，我读到后这一轮接着进行。`,
        `You answered: “${clip(request, 200)}”. That is clarify: my question paused the turn, your next message is its answer, and the turn went on once I read it.`
      ),
    };
  }
  const locale = localeOf(request);
  const intent = intentOf(request);
  const last = done.at(-1);
  switch (intent) {
    case 'read': {
      if (!offered.has('read_file')) return notOffered(locale, 'read_file', NEEDS_FOLDER);
      if (!last) {
        if (offered.has('list_dir')) {
          return {
            text: say(locale, '先看看工作目录里有什么。', 'Let me see what the working directory holds first.'),
            calls: [{ name: 'list_dir', args: {} }],
          };
        }
        return { text: '', calls: [{ name: 'read_file', args: { path: 'README.md' } }] };
      }
      if (last.name === 'list_dir') {
        const o = outcome(last.result);
        const file = o.kind === 'ok' ? fileToRead(o.text) : null;
        if (!file) {
          return {
            text: say(
              locale,
              `工作目录里没有可以读的文件${o.kind === 'ok' ? '' : `（${clip(o.text, 300)}）`}。放一个文本文件进去再试一次。`,
              `The working directory has no file I can read${o.kind === 'ok' ? '' : ` (${clip(o.text, 300)})`}. Put a text file in it and try again.`
            ),
          };
        }
        return { text: say(locale, `读取 ${file}。`, `Reading ${file}.`), calls: [{ name: 'read_file', args: { path: file, limit: 40 } }] };
      }
      return { text: resultSentence(locale, last) };
    }
    case 'write': {
      if (!last) {
        // the call is made whatever the session offers: the runtime, not the model, decides it
        return {
          text: say(locale, `试着写 ${DEMO_WRITE_PATH}。`, `Trying to write ${DEMO_WRITE_PATH}.`),
          calls: [
            {
              name: 'write_file',
              args: {
                path: DEMO_WRITE_PATH,
                content: say(locale, '演示模型写下的一行。\n', 'A line written by the demonstration model.\n'),
              },
            },
          ],
        };
      }
      return { text: resultSentence(locale, last) };
    }
    case 'delegate': {
      if (!offered.has('delegate_task')) {
        return notOffered(locale, 'delegate_task', {
          zh: '这个 Agent 不能委派。请选择「示例 · Crew master（委派）」再试一次。',
          en: 'this agent cannot delegate. Pick “示例 · Crew master（委派）” and try again.',
        });
      }
      if (!last) {
        const member = crewOf(system)[0];
        // the task is a read in the sub-agent's own script (no word of another step in it)
        const task = say(locale, '读一个工作目录里的文件，告诉我它开头的内容。', 'Read a file of the working directory and tell me how it begins.');
        return {
          text: member
            ? say(locale, `把任务委派给 Crew 成员「${member}」。`, `Delegating to the crew member “${member}”.`)
            : say(locale, '把任务委派给一个子 Agent。', 'Delegating to a sub-agent.'),
          calls: [{ name: 'delegate_task', args: member ? { task, agent: member } : { task } }],
        };
      }
      return { text: resultSentence(locale, last) };
    }
    case 'ask': {
      if (!offered.has('clarify')) {
        return notOffered(locale, 'clarify', {
          zh: '这个 Agent 没有 planning 工具集。请换一个 Agent。',
          en: 'this agent has no planning toolset. Pick another agent.',
        });
      }
      if (!last) {
        return {
          text: '',
          calls: [{ name: 'clarify', args: { question: say(locale, '你想让我先看哪个文件夹？', 'Which folder would you like me to look at first?') } }],
        };
      }
      return { text: resultSentence(locale, last) };
    }
    case 'approval': {
      if (!offered.has('bash')) {
        return notOffered(locale, 'bash', {
          zh: '它需要工作目录，并且会话允许 Shell。请新建会话，选一个文件夹并勾选允许 Shell，再试一次。',
          en: 'it needs a working directory and a session that allows shell commands. Start a new session with a folder and shell commands allowed, and try again.',
        });
      }
      if (!last) {
        return {
          text: say(locale, `运行 ${DEMO_APPROVAL_COMMAND}。`, `Running ${DEMO_APPROVAL_COMMAND}.`),
          calls: [{ name: 'bash', args: { command: DEMO_APPROVAL_COMMAND } }],
        };
      }
      return { text: resultSentence(locale, last) };
    }
    default:
      return { text: menu(locale, offered) };
  }
}

/** The sentence that ends a step: what the runtime decided about the call and what came of it. */
function resultSentence(locale: Locale, d: Done): string {
  const o = outcome(d.result);
  const tool = d.name;
  // a tool the session did not offer: the reason its route gives (port.ts), as the card says it
  const because = o.kind === 'denied' && o.code === RUNTIME_REASONS.notOffered ? /not offered because: ([a-z_]+)/.exec(o.text)?.[1] : undefined;
  if (because) {
    return say(
      locale,
      `策略拒绝了 ${tool}：这个会话没有提供它，因为${reasonSentence(because, locale)}。调用没有运行，卡片上写着原因。`,
      `The policy denied ${tool}: this session does not offer it, because: ${reasonSentence(because, locale)}. The call did not run; its card says why.`
    );
  }
  if (o.kind === 'denied') {
    return say(
      locale,
      `策略拒绝了 ${tool}：${reasonSentence(o.code, locale)}。调用没有运行，卡片上写着原因。`,
      `The policy denied ${tool}: ${reasonSentence(o.code, locale)}. The call did not run; its card says why.`
    );
  }
  if (o.kind === 'failed') {
    return say(locale, `${tool} 被允许，但运行失败：${clip(o.text, 500)}`, `${tool} was allowed but failed: ${clip(o.text, 500)}`);
  }
  if (d.name === 'read_file') {
    return (
      say(locale, `策略允许了 ${tool}，${String(d.args.path)} 的开头：`, `The policy allowed ${tool}; ${String(d.args.path)} begins:`) + '\n\n' + quoted(o.text)
    );
  }
  if (d.name === 'write_file') {
    return say(locale, `这个会话允许写入：${tool} 写好了 ${String(d.args.path)}。`, `This session may write: ${tool} wrote ${String(d.args.path)}.`);
  }
  if (d.name === 'delegate_task' || d.name === 'delegate_parallel') {
    return say(locale, '子 Agent 批次完成了任务，它的回答：', 'The sub-agent batch did the task; its answer:') + '\n\n' + quoted(o.text);
  }
  return say(locale, `${tool} 运行完毕：`, `${tool} ran:`) + '\n\n' + quoted(o.text);
}

/** Waits a moment between two pieces of the streamed text; a cancel ends the wait. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Pieces of the reply as a model streams them: a few characters each. */
function pieces(text: string): string[] {
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += 12) out.push(chars.slice(i, i + 12).join(''));
  return out;
}

/**
 * One turn of the demonstration model, for `streamTurn`: the reply streamed through `onDelta`, then its
 * tool calls. `cancelled()` is what a cancel during the stream becomes (the caller's ModelError).
 */
export async function demoTurn(
  request: { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] },
  signal: AbortSignal,
  onDelta: (text: string) => void,
  cancelled: () => Error
): Promise<DemoTurn> {
  const offered = new Set(request.tools.map(t => (t.type === 'function' ? t.function.name : '')));
  const step = nextStep(request.messages, offered);
  let content = '';
  for (const piece of pieces(step.text)) {
    if (signal.aborted) throw cancelled();
    await pause(15, signal);
    if (signal.aborted) throw cancelled();
    content += piece;
    onDelta(piece);
  }
  const toolCalls: DemoTurn['toolCalls'] = (step.calls ?? []).map(c => ({
    id: `demo_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    name: c.name,
    arguments: JSON.stringify(c.args),
  }));
  return { content, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', cut: false };
}
