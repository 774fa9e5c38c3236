/**
 * The model call: one streamed `/chat/completions` request to a channel's OpenAI-compatible endpoint,
 * through the official `openai` client (no hand-written HTTP or SSE). Timeouts and retries are set
 * explicitly: the client's own timeout covers the wait for the answer (retried with back-off on a
 * connection error, 408/409/429/5xx, `NETACLAW_MODEL_MAX_RETRIES` times); an idle timer of the same
 * length covers the wait between two stream chunks.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { MAX_REPLY_CHARS, MODEL_MAX_RETRIES, MODEL_TIMEOUT_MS } from '../config/settings';
import { errorMessage } from '../lib/errortext';
import { demoTurn } from './demo-model';
import { isDemoChannel } from '../service/demochannel';

export type { ChatCompletionMessageParam, ChatCompletionTool };

export interface ModelChannel {
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** The JSON text the model sent, as sent (may be malformed: the caller checks). */
  arguments: string;
}

export interface ModelTurn {
  content: string;
  toolCalls: ModelToolCall[];
  finishReason: string | null;
  /** The reply reached NETACLAW_MAX_REPLY_CHARS and the stream was stopped there. */
  cut: boolean;
}

export type ModelErrorCode = 'model_error' | 'model_timeout' | 'cancelled';

/** A model call that did not give a turn; `message` says why, never with the key. */
export class ModelError extends Error {
  constructor(
    public readonly code: ModelErrorCode,
    message: string
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

function client(channel: ModelChannel): OpenAI {
  return new OpenAI({
    baseURL: channel.baseUrl,
    // A channel without a key (a local vLLM or Ollama) sends no Authorization header at all.
    apiKey: channel.apiKey ?? 'none',
    defaultHeaders: channel.apiKey ? undefined : { Authorization: null },
    organization: null,
    project: null,
    timeout: MODEL_TIMEOUT_MS,
    maxRetries: MODEL_MAX_RETRIES,
  });
}

function describeFailure(err: unknown, channel: ModelChannel): ModelError {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError('model_timeout', `the model service at ${channel.baseUrl} did not answer within ${MODEL_TIMEOUT_MS} ms`);
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const detail = String(err.message ?? '').slice(0, 500);
    return new ModelError('model_error', `the model service at ${channel.baseUrl} answered HTTP ${err.status}: ${detail}`);
  }
  if (err instanceof OpenAI.APIConnectionError) {
    // the reason is at the end of the chain (fetch failed ← connect ECONNREFUSED / other side closed)
    const reasons: string[] = [];
    for (let e = (err as { cause?: unknown }).cause; e && reasons.length < 4; e = (e as { cause?: unknown }).cause) {
      const m = errorMessage(e);
      if (m && !reasons.includes(m)) reasons.push(m);
    }
    const why = reasons.length === 0 ? err.message : reasons.length === 1 ? reasons[0] : `${reasons[0]} (${reasons.slice(1).join(': ')})`;
    return new ModelError('model_error', `cannot reach the model service at ${channel.baseUrl}: ${why}`);
  }
  return new ModelError('model_error', `malformed answer from the model service at ${channel.baseUrl}: ${errorMessage(err).slice(0, 500)}`);
}

/**
 * Streams one model turn. `onDelta` gets the reply text as it comes. Rejects with a ModelError:
 * `cancelled` when `signal` aborts, `model_timeout` when the service is silent too long, else
 * `model_error` (HTTP error, connection refused, a malformed stream).
 */
export async function streamTurn(
  channel: ModelChannel,
  request: { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] },
  signal: AbortSignal,
  onDelta: (text: string) => void
): Promise<ModelTurn> {
  if (signal.aborted) throw new ModelError('cancelled', 'cancelled');
  // no channel configured and the demonstration model on: it answers the same request in place of a service
  if (isDemoChannel(channel)) return demoTurn(request, signal, onDelta, () => new ModelError('cancelled', 'cancelled'));
  const abort = new AbortController();
  // Why the stream was aborted (set from the timers and listeners below).
  let why = null as 'cancelled' | 'idle' | 'cut' | null;
  const onCancel = () => {
    why = why ?? 'cancelled';
    abort.abort();
  };
  signal.addEventListener('abort', onCancel);
  let idle: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      why = why ?? 'idle';
      abort.abort();
    }, MODEL_TIMEOUT_MS);
  };
  const turn: ModelTurn = { content: '', toolCalls: [], finishReason: null, cut: false };
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  try {
    const stream = await client(channel).chat.completions.create(
      {
        model: channel.model,
        messages: request.messages,
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
        stream: true,
      },
      { signal: abort.signal }
    );
    armIdle();
    for await (const chunk of stream) {
      armIdle();
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') {
        const room = MAX_REPLY_CHARS - turn.content.length;
        const text = delta.content.length > room ? delta.content.slice(0, room) : delta.content;
        turn.content += text;
        if (text !== '') onDelta(text);
        if (turn.content.length >= MAX_REPLY_CHARS) {
          turn.cut = true;
          why = 'cut';
          abort.abort();
          break;
        }
      }
      for (const tc of delta.tool_calls ?? []) {
        const i = typeof tc.index === 'number' ? tc.index : calls.length;
        const slot = (calls[i] = calls[i] ?? { id: '', name: '', arguments: '' });
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.name += tc.function.name;
        if (tc.function?.arguments) slot.arguments += tc.function.arguments;
      }
      if (choice.finish_reason) turn.finishReason = choice.finish_reason;
    }
    // An abort while reading ends the client's stream quietly: say why it ended.
    if (why === 'cancelled' || why === 'idle') throw new Error('aborted');
  } catch (err) {
    if (why === 'cut') {
      // stopped on purpose: keep what came
    } else if (why === 'cancelled' || signal.aborted) {
      throw new ModelError('cancelled', 'cancelled');
    } else if (why === 'idle') {
      throw new ModelError('model_timeout', `the model service at ${channel.baseUrl} sent nothing for ${MODEL_TIMEOUT_MS} ms`);
    } else {
      throw describeFailure(err, channel);
    }
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', onCancel);
  }
  if (turn.cut) turn.finishReason = 'length';
  // Tool calls of a reply that was cut are dropped: their arguments may be incomplete.
  turn.toolCalls = turn.cut ? [] : calls.filter(Boolean).map((c, i) => ({ id: c.id || `call_${i + 1}`, name: c.name, arguments: c.arguments }));
  return turn;
}
