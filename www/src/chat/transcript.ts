// The chat transcript: what the page shows of a session, built from the stored session
// (GET /admin/netaclaw/session/info) or from the chat WebSocket's events as they come. Every
// decision in it (decision, reason, route) is the runtime's record, shown as it is.
import type { ChatEvent, ChatToolCall, NetRefusal, SessionInfo, StoredCall } from '../base/types';

/** One tool call of the main agent, as its card shows it. */
export interface CardCall {
  /** The model's call id. */
  id: string;
  name: string;
  arguments: unknown;
  /** Announced (tool-call), no result yet. */
  pending: boolean;
  /** The runtime's record: null while pending, or for a call cut short before it was recorded. */
  record: (Omit<StoredCall, 'seq'> & { detail?: string | null; network?: NetRefusal[] }) | null;
  /** The result the model was given, when there is no record (a call cut short). */
  resultText: string | null;
  /** The sub-agent batches this call started (delegation). */
  batchIds: number[];
  /** For a stored delegation call: each batch it started, with its task and the sub-agent's reply. */
  delegated?: Delegated[];
}

/** A batch a delegation call started, as its stored call says: the task it was given and the reply. */
export interface Delegated {
  batchId: number;
  task: string | null;
  reply: string;
}

/**
 * The batches of a stored delegation call: the executor's result text marks each batch with a line
 * `[sub-agent batch N]` (then the sub-agent's reply, or ` failed: …`), in the order of the call's tasks —
 * `{ task }`, or `{ tasks: [{ task }, …] }` whose results are `## Task i` sections. A batch row does not
 * keep its task nor the reply, so a reopened session takes them from here.
 */
export function delegatedBatches(args: unknown, output: string): Delegated[] {
  const marks = [...output.matchAll(/^\[sub-agent batch (\d+)\]( failed: [^\n]*)?\n?/gm)];
  if (marks.length === 0) return [];
  const tasks: (string | null)[] = [];
  if (isPlainObject(args) && typeof args.task === 'string') tasks.push(args.task);
  else if (isPlainObject(args) && Array.isArray(args.tasks)) {
    for (const t of args.tasks) tasks.push(isPlainObject(t) && typeof t.task === 'string' ? t.task : null);
  }
  return marks.map((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const end = i + 1 < marks.length ? (marks[i + 1].index ?? output.length) : output.length;
    const reply = m[2]
      ? ''
      : output
          .slice(start, end)
          .replace(/\n+## Task \d+\n?$/, '')
          .trimEnd();
    return { batchId: Number(m[1]), task: tasks[i] ?? null, reply };
  });
}

export type TranscriptItem =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; streaming: boolean }
  | { kind: 'tool'; key: string; call: CardCall }
  /** An operator's answer to an escalation, as the agent was given it. */
  | { kind: 'operator'; key: string; text: string }
  /** A question the agent asked the user (`clarify`), answered by the user message that follows it. */
  | { kind: 'question'; key: string; text: string; callId: string }
  | { kind: 'error'; key: string; code: string; message: string };

/** The arguments the model sent (their JSON text), parsed like the executor does; the text itself when not JSON. */
export function parseArguments(text: string): unknown {
  const raw = text.trim() === '' ? '{}' : text;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON with object keys sorted: equality regardless of key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    isPlainObject(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val,
  );
}

/**
 * Is `record` the runtime's record of the model's call `name(argsText)`? The names must be equal; when
 * both argument values are objects they must be equal too (a record of arguments too long to store
 * holds `{ truncated: true, … }` instead, and matches on the name).
 */
function recordMatches(record: StoredCall, name: string, argsText: string): boolean {
  if (record.name !== name) return false;
  const args = parseArguments(argsText);
  if (!isPlainObject(args) || !isPlainObject(record.arguments)) return true;
  if (record.arguments.truncated === true) return true;
  return canonical(args) === canonical(record.arguments);
}

/**
 * The transcript of a stored session. The main agent's calls are recorded in order, one per tool call
 * of its assistant messages, except the calls of a turn cut short after they were announced (cancel, a
 * failure): those have only their tool message. So the records are matched to the tool calls in order,
 * by name and arguments, and a tool call with no matching record shows the result the model was given.
 */
export function transcriptOfSession(info: SessionInfo): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const cards = new Map<string, CardCall>();
  let next = 0;
  for (const m of info.messages) {
    const key = `m${m.seq}`;
    if (m.role === 'user') {
      items.push({ kind: 'user', key, text: m.content ?? '' });
    } else if (m.role === 'assistant') {
      if (m.content) items.push({ kind: 'assistant', key, text: m.content, streaming: false });
      (m.toolCalls ?? []).forEach((tc, i) => {
        const candidate = info.calls[next];
        const record = candidate && recordMatches(candidate, tc.name, tc.arguments) ? info.calls[next++] : null;
        const { seq: _seq, ...rest } = record ?? ({} as StoredCall);
        const args = record ? record.arguments : parseArguments(tc.arguments);
        const delegated = record ? delegatedBatches(args, record.output ?? record.error ?? '') : [];
        const call: CardCall = {
          id: tc.id,
          name: tc.name,
          arguments: args,
          pending: false,
          record: record ? rest : null,
          resultText: null,
          batchIds: delegated.map((d) => d.batchId),
          delegated,
        };
        cards.set(tc.id, call);
        items.push({ kind: 'tool', key: `${key}c${i}`, call });
      });
    } else if (m.role === 'tool') {
      const card = m.toolCallId ? cards.get(m.toolCallId) : undefined;
      if (card && !card.record) card.resultText = m.content;
    } else if (m.role === 'resolution') {
      items.push({ kind: 'operator', key, text: m.content ?? '' });
    } else if (m.role === 'question') {
      // answered when a result of its call follows (the answer is the next user message); the question
      // the session still waits on is shown at the end of the transcript, with the message box asking for it
      const answered = info.messages.some((r) => r.role === 'tool' && r.toolCallId === m.toolCallId && r.seq > m.seq);
      if (answered && m.toolCallId) items.push({ kind: 'question', key, text: m.content ?? '', callId: m.toolCallId });
    } else {
      items.push({ kind: 'error', key, code: m.name ?? '', message: m.content ?? '' });
    }
  }
  return items;
}

/** The live part of a transcript: the items of the turns sent from this page, updated by the stream. */
export class LiveTranscript {
  items: TranscriptItem[] = [];
  private seq = 0;

  private key(prefix: string): string {
    this.seq += 1;
    return `live-${prefix}${this.seq}`;
  }

  private endStreaming(): void {
    const last = this.items[this.items.length - 1];
    if (last && last.kind === 'assistant') last.streaming = false;
  }

  private card(id: string): CardCall | null {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === 'tool' && it.call.id === id) return it.call;
    }
    return null;
  }

  /** The main agent's call in progress (calls run one at a time, in order). */
  pendingCall(): CardCall | null {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === 'tool' && it.call.pending) return it.call;
    }
    return null;
  }

  userMessage(text: string): void {
    this.items.push({ kind: 'user', key: this.key('u'), text });
  }

  /** The question the session waited on, now answered by the user message that follows. */
  question(text: string, callId: string): void {
    this.items.push({ kind: 'question', key: this.key('q'), text, callId });
  }

  /** A main-agent event of the stream (those of a sub-agent, `batchId` set, belong to its batch). */
  apply(e: ChatEvent): void {
    if (e.type === 'delta') {
      if (e.batchId !== null) return;
      const last = this.items[this.items.length - 1];
      if (last && last.kind === 'assistant' && last.streaming) last.text += e.text;
      else this.items.push({ kind: 'assistant', key: this.key('a'), text: e.text, streaming: true });
    } else if (e.type === 'tool-call') {
      if (e.batchId !== null) return;
      this.endStreaming();
      this.items.push({
        kind: 'tool',
        key: this.key('c'),
        call: { id: e.id, name: e.name, arguments: e.arguments, pending: true, record: null, resultText: null, batchIds: [] },
      });
    } else if (e.type === 'tool-result') {
      if (e.batchId !== null) return;
      const { type: _t, sessionId: _s, batchId: _b, id, ...record } = e;
      const card = this.card(id);
      if (card) {
        card.pending = false;
        card.record = record as ChatToolCall;
        card.arguments = record.arguments;
      }
    } else if (e.type === 'batch') {
      const card = this.pendingCall();
      if (card && !card.batchIds.includes(e.batchId)) card.batchIds.push(e.batchId);
    } else if (e.type === 'done') {
      this.endStreaming();
    } else if (e.type === 'error') {
      this.endStreaming();
      for (const it of this.items) if (it.kind === 'tool' && it.call.pending) it.call.pending = false;
      this.items.push({ kind: 'error', key: this.key('e'), code: e.code, message: e.message });
    }
  }
}
