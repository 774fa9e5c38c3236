// The sub-agent batches a page shows: each with its stored row (policy, routes), every call with its
// decision and reason, live while it runs. A running batch is read from its Server-Sent Events
// (`/subagent/events`: past events first, then live ones, `done` last); a finished one from
// `/subagent/info`. Nothing here is computed: routes, decisions and reasons are the batch's own.
import { onBeforeUnmount, reactive } from 'vue';
import { api, errorText, streamBatchEvents, type StreamEvent } from '../server/api';
import type { BatchRecord, BatchRow, BatchStatus, StoredCall } from '../base/types';

/** A call of a batch: announced (`call` event), maybe proxied, then finished (`result`). */
export interface BatchCallView {
  seq: number;
  name: string;
  arguments: unknown;
  pending: boolean;
  /** The decision the worker sent with its proxy request (before the result). */
  proxied: { decision: string; reason: string | null } | null;
  record: StoredCall | null;
}

export interface BatchView {
  id: number;
  /** The delegated task (from the chat stream; a console batch has none). */
  task: string | null;
  status: BatchStatus;
  row: BatchRow | null;
  calls: BatchCallView[];
  /** Proxy requests the main process refused (L4), recorded with the batch. */
  refused: StoredCall[];
  /** The sub-agent's reply as it streams (chat `delta` events of this batch), then its final reply. */
  text: string;
  error: string | null;
  /** Reading the batch failed (not the batch itself). */
  loadError: string | null;
  live: boolean;
}

function emptyView(id: number, task: string | null): BatchView {
  return { id, task, status: 'running', row: null, calls: [], refused: [], text: '', error: null, loadError: null, live: false };
}

export function useBatches() {
  /** Newest first. */
  const list = reactive<BatchView[]>([]);
  const streams = new Map<number, AbortController>();

  function find(id: number): BatchView | undefined {
    return list.find((b) => b.id === id);
  }

  function ensure(id: number, task: string | null = null): BatchView {
    let b = find(id);
    if (!b) {
      list.unshift(emptyView(id, task));
      list.sort((x, y) => y.id - x.id);
      b = find(id)!;
    } else if (task && !b.task) {
      b.task = task;
    }
    return b;
  }

  function callOf(b: BatchView, seq: number, name: string, args: unknown): BatchCallView {
    let c = b.calls.find((x) => x.seq === seq);
    if (!c) {
      c = { seq, name, arguments: args, pending: true, proxied: null, record: null };
      b.calls.push(c);
      b.calls.sort((x, y) => x.seq - y.seq);
      c = b.calls.find((x) => x.seq === seq)!;
    }
    return c;
  }

  function applyRecord(b: BatchView, r: BatchRecord) {
    const { calls, ...row } = r;
    b.row = row;
    b.status = r.status;
    b.error = r.error;
    for (const s of calls) {
      const c = callOf(b, s.seq, s.name, s.arguments);
      c.pending = false;
      c.record = s;
      c.arguments = s.arguments;
    }
  }

  function onEvent(b: BatchView, e: StreamEvent) {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'batch': {
        const { calls: _c, ...row } = d as unknown as BatchRecord;
        b.row = row;
        b.status = row.status;
        b.error = row.error;
        return;
      }
      case 'call':
        callOf(b, d.seq as number, d.name as string, d.arguments);
        return;
      case 'proxy': {
        const c = callOf(b, d.seq as number, d.name as string, undefined);
        c.proxied = { decision: d.decision as string, reason: (d.reason as string | null) ?? null };
        return;
      }
      case 'result': {
        const s = d as unknown as StoredCall;
        const c = callOf(b, s.seq, s.name, s.arguments);
        c.pending = false;
        c.record = s;
        c.arguments = s.arguments;
        return;
      }
      case 'proxy-denied':
        b.refused.push(d as unknown as StoredCall);
        return;
      case 'done':
        b.status = d.status as BatchStatus;
        b.error = (d.error as string | null) ?? null;
        if (b.row) b.row.status = b.status;
        return;
      default:
        return; // worker-event: nothing to show
    }
  }

  /** Follows a batch's events until `done` (a finished batch is replayed from the database). */
  function follow(id: number, task: string | null = null): BatchView {
    const b = ensure(id, task);
    if (streams.has(id)) return b;
    const abort = new AbortController();
    streams.set(id, abort);
    b.live = true;
    b.loadError = null;
    streamBatchEvents(id, (e) => onEvent(find(id) ?? b, e), abort.signal)
      .catch((e: unknown) => {
        const v = find(id);
        if (v) v.loadError = errorText(e);
      })
      .finally(() => {
        streams.delete(id);
        const v = find(id);
        if (v) v.live = false;
      });
    return b;
  }

  /** A finished batch with its calls, as stored. */
  async function load(id: number): Promise<void> {
    const b = ensure(id);
    try {
      applyRecord(find(id) ?? b, await api.subagent.info(id));
    } catch (e) {
      b.loadError = errorText(e);
    }
  }

  /** A batch answered whole (the console's run). */
  function put(r: BatchRecord): BatchView {
    const b = ensure(r.id);
    applyRecord(b, r);
    return find(r.id)!;
  }

  /** What the chat stream says of a batch: its task, status, reply. */
  function fromChat(e: { batchId: number; status: BatchStatus; task: string; reply?: string; error?: string }) {
    const b = e.status === 'running' ? follow(e.batchId, e.task) : ensure(e.batchId, e.task);
    if (e.status !== 'running') {
      b.status = e.status;
      if (e.reply !== undefined) b.text = e.reply;
      if (e.error !== undefined) b.error = e.error;
    }
  }

  /** What a stored delegation call says of a batch (a reopened session): its task and reply, when not known. */
  function describe(batchId: number, task: string | null, reply: string) {
    const b = find(batchId);
    if (!b) return;
    if (task && !b.task) b.task = task;
    if (reply && !b.text && b.status !== 'running') b.text = reply;
  }

  /** Sub-agent text as it streams. */
  function delta(batchId: number, text: string) {
    ensure(batchId).text += text;
  }

  /** Shows the batches of rows: running ones followed live, finished ones loaded. */
  async function show(rows: BatchRow[]): Promise<void> {
    await Promise.all(rows.map((r) => (r.status === 'running' ? Promise.resolve(void follow(r.id)) : load(r.id))));
  }

  function clear(): void {
    for (const a of streams.values()) a.abort();
    streams.clear();
    list.splice(0, list.length);
  }

  onBeforeUnmount(clear);
  return { list, follow, load, put, fromChat, delta, describe, show, clear };
}
