/**
 * The agent loop — one for the main agent of a chat turn and for every sub-agent: ask the model, keep its
 * answer, send each of its tool calls through the call port, give the results back, until the model
 * answers without calls, a call pauses the turn for the user (`clarify`), or the step limit. Where the
 * history lives (the session's messages, or a sub-agent's own list) and where calls go (the port) are
 * the caller's.
 */
import type { NetaClawModelChannelEntity } from '../entity/channel';
import { MAX_STEPS } from '../settings';
import { ChatCompletionMessageParam, ChatCompletionTool, ModelError, ModelToolCall, streamTurn } from './model';
import { CallPort, PortResult, resultText, ToolCallView } from './port';

/** Where a loop's conversation lives. */
export interface LoopHistory {
  /** The messages of the next model request, system prompt first. */
  messages(): Promise<ChatCompletionMessageParam[]>;
  /** Keeps the model's answer (its text and its tool calls). */
  assistant(content: string, calls: ModelToolCall[]): Promise<void>;
  /** Keeps a tool call's result as the model reads it. */
  result(call: ModelToolCall, text: string): Promise<void>;
}

export interface LoopOptions {
  channel: NetaClawModelChannelEntity;
  tools: ChatCompletionTool[];
  history: LoopHistory;
  port: CallPort;
  signal: AbortSignal;
  onDelta(text: string): void;
}

export interface LoopResult {
  reply: string;
  stopReason: 'stop' | 'length' | 'step_limit' | 'clarify';
  calls: ToolCallView[];
  /** The question the turn waits on (`stopReason: 'clarify'`): the call's id and its text. */
  clarify?: { callId: string; question: string };
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
    let pause: LoopResult['clarify'];
    for (let i = 0; i < turn.toolCalls.length; i++) {
      const tc = turn.toolCalls[i];
      let view: PortResult;
      try {
        if (o.signal.aborted) throw new ModelError('cancelled', 'cancelled');
        view = await o.port.call(tc);
      } catch (err) {
        const note = o.signal.aborted ? 'Tool call cancelled.' : `Tool call failed: ${(err as Error)?.message ?? err}`;
        for (const rest of turn.toolCalls.slice(i)) await o.history.result(rest, note);
        throw o.signal.aborted ? new ModelError('cancelled', 'cancelled') : err;
      }
      const { pause: asks, ...shown } = view;
      calls.push(shown);
      // the first question waits for the user's answer (its result is that answer); a second one in the
      // same answer is told so
      if (asks && !pause) pause = { callId: tc.id, question: asks.question };
      else await o.history.result(tc, asks ? 'Only one question is asked at a time: ask it again once the first is answered.' : resultText(view));
    }
    if (pause) return { reply, stopReason: 'clarify', calls, clarify: pause };
  }
  return { reply, stopReason: 'step_limit', calls };
}
