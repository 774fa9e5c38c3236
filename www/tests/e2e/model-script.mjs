// The script of the scripted OpenAI-compatible model the e2e run starts (js/backend/test/support/
// model.js, on loopback: it stands for the external model service). It answers from what it is sent,
// so every test and every session gets the same conversation for the same message:
// - the user's message picks the scenario (MESSAGES), the number of model turns since that message
//   picks the step;
// - a sub-agent is recognized by its task (TASK), the first user message of its own conversation;
// - answers quote the tool results they were given, so a page showing the answer shows what really ran.
// Anything else gets a short echo.

/** The content of notes.txt in the workspaces the tests make. */
export const NOTES = 'hello from the e2e workspace';

export const MESSAGES = {
  /** read_file (runs), write_file (denied: writes not permitted), memory_save (not offered). */
  read: 'What is in notes.txt?',
  /** delegate_task to a sub-agent, which lists, reads and tries bash (denied: no shell). */
  delegate: 'Ask a sub-agent to look at the workspace.',
  /** The model stays silent for a minute (a turn to cancel). */
  slow: 'Think about it for a long while.',
  /** read_file with a first text, then a pause before the rest of the answer (a page reloaded mid-answer). */
  twoParts: 'Read notes.txt, then take your time.',
  /** todo (a list of three, one done), then escalate (an operator has to act), then a short answer. */
  panels: 'Plan the release and hand the signing key to a human.',
  /** clarify (the turn waits for the user's answer), then an answer quoting it. */
  clarify: 'Write me a story.',
  /** bash writing a file, which the agent's rule asks about (APPROVAL_RULE): the turn waits for an approval, then reports the result. */
  approval: 'Write the approved file.',
  /** get_current_time of the Python MCP server mcp-server-time (whatever the server is named), then an answer quoting its time. */
  time: 'What time is it in Shanghai?',
};

/** The time zone the `time` scenario asks for. */
export const TIME_ZONE = 'Asia/Shanghai';

/** The ask rule of the approval scenario's agent, and the command it asks about. */
export const APPROVAL_RULE = 'bash(echo asked:*)';
export const APPROVAL_COMMAND = 'echo asked e2e > approved.txt';

/**
 * The network scenario: a message that starts with NET_PREFIX and names URLs; the agent fetches each
 * with curl in one bash call (the sandbox's proxy decides each connection), then quotes the result's
 * first line.
 */
export const NET_PREFIX = 'Fetch these URLs: ';

/** The question of the `clarify` scenario. */
export const CLARIFY_QUESTION = 'Should the story be short or long?';

/** The todo list and the escalation reason of the `panels` scenario. */
export const PANEL_TODOS = [
  { text: 'Read the release notes', done: true },
  { text: 'Build the packages', done: false },
  { text: 'Sign the packages', done: false },
];
export const ESCALATION_REASON = 'The signing key is not in the workspace: a human has to provide it.';

/** How long the second part of `twoParts` waits. */
export const PAUSE_MS = 4000;

export const TASK = 'List the workspace and read notes.txt.';
export const SUB_TOOLS = ['list_dir', 'read_file', 'bash'];
/** How long the sub-agent's model calls take: the page has time to show the batch running. */
export const SUB_STALL_MS = 2500;

/** The text of a message (a string, or an array of text parts). */
function text(m) {
  if (typeof m?.content === 'string') return m.content;
  if (Array.isArray(m?.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

/** An operator's answer to an escalation, which the backend gives the model as a user message of its own. */
const isResolution = (m) => m.role === 'user' && text(m).startsWith('An operator answered ');

/** The current turn: the last user message (not an operator's answer), and what came after it (assistant turns, tool results). */
function currentTurn(messages) {
  let i = messages.length - 1;
  while (i >= 0 && (messages[i].role !== 'user' || isResolution(messages[i]))) i--;
  const after = i >= 0 ? messages.slice(i + 1) : [];
  return {
    message: i >= 0 ? text(messages[i]) : '',
    step: after.filter((m) => m.role === 'assistant').length,
    results: after.filter((m) => m.role === 'tool').map(text),
  };
}

/** The model's answer to one request (a turn of ScriptedModel). */
export function respond(body) {
  const { message, step, results } = currentTurn(body?.messages ?? []);
  // the answer to the `clarify` scenario's question: the last user message after the call that asked it
  const messages = body?.messages ?? [];
  const asked = messages.findIndex((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.id === 'clarify_1'));
  if (asked >= 0 && messages.slice(asked).some((m) => m.role === 'user') && message !== MESSAGES.clarify) {
    return { chunks: ['A ', `${message.trim()} story it is.`] };
  }
  if (message === MESSAGES.approval) {
    if (step === 0) return { chunks: ['Writing it.'], toolCalls: [{ id: 'approval_1', name: 'bash', arguments: { command: APPROVAL_COMMAND } }] };
    return { chunks: ['The command answered: ', (results[0] ?? '').split('\n')[0]] };
  }
  if (message.startsWith(NET_PREFIX)) {
    const urls = message
      .slice(NET_PREFIX.length)
      .split(/\s+/)
      .filter((u) => /^https?:\/\/[\w.:/-]+$/.test(u));
    const command = urls.map((u) => `curl -sS --max-time 120 -w ' status=%{http_code}\\n' ${u}`).join('; ');
    if (step === 0) return { chunks: ['Fetching.'], toolCalls: [{ id: 'net_1', name: 'bash', arguments: { command } }] };
    return { chunks: ['The fetch answered: ', (results[0] ?? '').split('\n')[0]] };
  }
  if (message === MESSAGES.time) {
    const tool = (body?.tools ?? []).map((t) => t.function?.name).find((n) => /^mcp__.+__get_current_time$/.test(n ?? ''));
    if (!tool) return { content: 'No clock is offered to me.' };
    if (step === 0) return { chunks: ['Asking the clock.'], toolCalls: [{ id: 'time_1', name: tool, arguments: { timezone: TIME_ZONE } }] };
    let at = '';
    try {
      at = JSON.parse(results[0] ?? '').datetime ?? '';
    } catch {
      at = (results[0] ?? '').split('\n')[0];
    }
    return { chunks: [`In ${TIME_ZONE} it is `, at] };
  }
  if (message === MESSAGES.clarify) {
    return { chunks: ['One question first.'], toolCalls: [{ id: 'clarify_1', name: 'clarify', arguments: { question: CLARIFY_QUESTION } }] };
  }
  if (message === TASK) {
    if (step === 0) {
      return {
        stallMs: SUB_STALL_MS,
        toolCalls: [
          { id: 'sub_list', name: 'list_dir', arguments: {} },
          { id: 'sub_read', name: 'read_file', arguments: { path: 'notes.txt' } },
          { id: 'sub_bash', name: 'bash', arguments: { command: 'cat notes.txt' } },
        ],
      };
    }
    return { stallMs: SUB_STALL_MS, chunks: ['The workspace holds notes.txt, ', `which says: ${(results[1] ?? '').trim()}`] };
  }
  if (message === MESSAGES.read) {
    if (step === 0) {
      return {
        chunks: ['Let me ', 'look at ', 'notes.txt.'],
        toolCalls: [
          { id: 'read_1', name: 'read_file', arguments: { path: 'notes.txt' } },
          { id: 'write_1', name: 'write_file', arguments: { path: 'copy.txt', content: 'copy' } },
          { id: 'mem_1', name: 'memory_save', arguments: { content: 'the notes were read' } },
        ],
      };
    }
    return { chunks: ['notes.txt says: ', (results[0] ?? '').trim()] };
  }
  if (message === MESSAGES.delegate) {
    if (step === 0) {
      return {
        chunks: ['I will ask ', 'a sub-agent.'],
        toolCalls: [{ id: 'delegate_1', name: 'delegate_task', arguments: { task: TASK, tools: SUB_TOOLS } }],
      };
    }
    return { chunks: ['The sub-agent reported: ', (results[0] ?? '').replace(/^\[sub-agent batch \d+\]\n/, '')] };
  }
  if (message === MESSAGES.panels) {
    if (step === 0) return { chunks: ['Planning ', 'first.'], toolCalls: [{ id: 'todo_1', name: 'todo', arguments: { items: PANEL_TODOS } }] };
    if (step === 1) return { toolCalls: [{ id: 'escalate_1', name: 'escalate', arguments: { reason: ESCALATION_REASON } }] };
    return { chunks: ['Handed over: ', (results[1] ?? '').trim()] };
  }
  if (message === MESSAGES.slow) return { stallMs: 60_000, content: 'Finally.' };
  if (message === MESSAGES.twoParts) {
    if (step === 0) {
      return { chunks: ['First, ', 'the notes.'], toolCalls: [{ id: 'read_2', name: 'read_file', arguments: { path: 'notes.txt' } }] };
    }
    return { stallMs: PAUSE_MS, chunks: ['Then: ', 'notes.txt says: ', (results[0] ?? '').trim()] };
  }
  return { content: `(scripted model) You said: ${message}` };
}
