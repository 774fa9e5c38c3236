/**
 * The agent loop — one for the main agent of a chat turn and for every sub-agent: ask the model, keep its
 * answer, send each of its tool calls through the call port, give the results back, until the model
 * answers without calls, a call pauses the turn for the user (`clarify`), or the step limit. Where the
 * history lives (the session's messages, or a sub-agent's own list) and where calls go (the port) are
 * the caller's.
 */
import type { NetaClawModelChannelEntity } from '../entity/channel';
import { CONCURRENT_CALLS_MAX } from '../runtime/limits';
import { MAX_STEPS } from '../config/settings';
import { ChatCompletionMessageParam, ChatCompletionTool, ModelError, ModelToolCall, streamTurn } from './model';
import { APPROVAL_REQUIRED } from '../runtime/codes';
import { AskedCall, CallPort, PortResult, resultText, shownOf, ToolCallView } from './port';
import type { ResultMedia } from '../runtime';
import { errorMessage } from '../lib/errortext';

/** Where a loop's conversation lives. */
export interface LoopHistory {
  /** The messages of the next model request, system prompt first. */
  messages(): Promise<ChatCompletionMessageParam[]>;
  /** Keeps the model's answer (its text and its tool calls). */
  assistant(content: string, calls: ModelToolCall[]): Promise<void>;
  /** Keeps a tool call's result as the model reads it, and the images and audio it carries (agent/media.ts). */
  result(call: ModelToolCall, text: string, media?: ResultMedia[]): Promise<void>;
}

export interface LoopOptions {
  channel: NetaClawModelChannelEntity;
  tools: ChatCompletionTool[];
  history: LoopHistory;
  port: CallPort;
  /**
   * Whether calls of this tool may run beside other calls of the same answer (its manifest's
   * `executionMode`, the package's); false: the call runs alone.
   */
  concurrent(name: string): boolean;
  signal: AbortSignal;
  onDelta(text: string): void;
}

export interface LoopResult {
  reply: string;
  stopReason: 'stop' | 'length' | 'step_limit' | 'clarify' | 'approval';
  calls: ToolCallView[];
  /** The question the turn waits on (`stopReason: 'clarify'`): the call's id and its text. */
  clarify?: { callId: string; question: string };
  /** The call a rule asks about that the turn waits on (`stopReason: 'approval'`); it has no result yet. */
  approval?: { call: ModelToolCall; asked: AskedCall };
}

/**
 * Runs the loop. A model error (ModelError) and a cancel propagate; before they do, every call of the
 * model's last answer has a result, so the history stays valid.
 */
export async function runAgentLoop(o: LoopOptions): Promise<LoopResult> {
  const calls: ToolCallView[] = [];
  let reply = '';
  for (let step = 1; step <= MAX_STEPS; step++) {
    const turn = await streamTurn(o.channel, { messages: await o.history.messages(), tools: o.tools }, o.signal, o.onDelta);
    reply = turn.content;
    await o.history.assistant(turn.content, turn.toolCalls);
    if (turn.toolCalls.length === 0) return { reply, stopReason: turn.cut ? 'length' : 'stop', calls };
    const tcs = turn.toolCalls;
    // Run the calls: consecutive calls of tools whose manifest lets them run side by side at most
    // CONCURRENT_CALLS_MAX at a time; any other call alone, after the ones before it and before the ones
    // after it. A call that fails (or a cancel) lets the calls in progress end and starts no other.
    const views: (PortResult | undefined)[] = new Array(tcs.length);
    const failed: { failure: { err: unknown } | null } = { failure: null };
    const run = async (k: number) => {
      if (failed.failure) return;
      try {
        if (o.signal.aborted) throw new ModelError('cancelled', 'cancelled');
        views[k] = await o.port.call(tcs[k]);
      } catch (err) {
        failed.failure ??= { err };
      }
    };
    for (let i = 0; i < tcs.length && !failed.failure; ) {
      let end = i + 1;
      if (o.concurrent(tcs[i].name)) while (end < tcs.length && o.concurrent(tcs[end].name)) end++;
      await eachBounded(range(i, end), CONCURRENT_CALLS_MAX, run);
      i = end;
    }
    // The results, in the model's order.
    if (failed.failure) {
      const err = failed.failure.err;
      const note = o.signal.aborted ? 'Tool call cancelled.' : `Tool call failed: ${errorMessage(err)}`;
      for (let k = 0; k < tcs.length; k++) {
        const view = views[k];
        if (view) calls.push(shownOf(view));
        await o.history.result(tcs[k], view && !view.pause ? resultText(view) : note);
      }
      throw o.signal.aborted ? new ModelError('cancelled', 'cancelled') : err;
    }
    let pause: { clarify: LoopResult['clarify'] } | { approval: LoopResult['approval'] } | undefined;
    for (let k = 0; k < tcs.length; k++) {
      const tc = tcs[k];
      let view = views[k]!;
      const asks = view.pause;
      // the first question or approval waits for the user's answer (the call's result comes with it); a
      // second one in the same answer is told so (a second approval is refused, recorded with its rule)
      if (asks && !pause) {
        calls.push(shownOf(view));
        pause = 'question' in asks ? { clarify: { callId: tc.id, question: asks.question } } : { approval: { call: tc, asked: asks.approval } };
        continue;
      }
      if (asks && 'approval' in asks) {
        const detail = `only one call is put to the user at a time: make it again once the first is answered. ${asks.approval.detail ?? ''}`.trim();
        view = await o.port.refuse(tc, view.arguments, asks.approval, { reason: APPROVAL_REQUIRED, detail });
      }
      calls.push(shownOf(view));
      await o.history.result(
        tc,
        asks && 'question' in asks ? 'Only one question is asked at a time: ask it again once the first is answered.' : resultText(view),
        asks ? undefined : view.media
      );
    }
    if (pause && 'clarify' in pause) return { reply, stopReason: 'clarify', calls, clarify: pause.clarify };
    if (pause && 'approval' in pause) return { reply, stopReason: 'approval', calls, approval: pause.approval };
  }
  return { reply, stopReason: 'step_limit', calls };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}

/** Runs `fn` on every item, at most `limit` at a time, each started as soon as a place is free. */
async function eachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
