'use strict';
/**
 * A scripted OpenAI-compatible model service on loopback (plain node:http): it stands for the external
 * model in the tests. `POST /v1/chat/completions` answers the next turn of its script, streamed (SSE,
 * `data: {chunk}` … `data: [DONE]`) or not (one JSON completion) as the request asks, and records every
 * request (headers and parsed body).
 *
 * A turn: { content?: string, chunks?: string[] (the content in these pieces), toolCalls?: [{ id?, name,
 * arguments: string | object }], finishReason?, status?: number (an HTTP error with `content` as its
 * message), stallMs?: number (wait this long before answering), stallAfterChunks?: number (with stallMs:
 * send this many chunks, then go silent), rawData?: string[] (SSE data payloads sent as they are),
 * hangUp?: true (close the connection without answering), intervalMs?: number (streamed: wait this
 * long between two SSE payloads; `sent` records when each content chunk went out), when?: (request body) => boolean (checked:
 * a mismatch fails the request with 500 and is reported by `problems`) }.
 * A turn may also be a function (body) => turn, to answer from what was sent. `respond(fn)` sets such a
 * function for every request that finds the script empty (a long-running script, e.g. the pages' e2e run).
 */
const http = require('node:http');

class ScriptedModel {
  constructor() {
    this.requests = [];
    this.queue = [];
    this.problems = [];
    this.sockets = new Set();
    this.responder = null;
  }

  async start() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', s => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise(resolve => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${this.server.address().port}/v1`;
    return this;
  }

  /** Appends turns to the script. */
  push(...turns) {
    this.queue.push(...turns);
    return this;
  }

  /** Answers every request that finds the script empty with `fn(body)` (a turn, or null for none). */
  respond(fn) {
    this.responder = fn;
    return this;
  }

  /** Forgets the script, the recorded requests and problems. */
  reset() {
    this.queue = [];
    this.requests = [];
    this.problems = [];
  }

  /**
   * (`abortedAt`: when the close arrived.)
   * Whether recorded request i (negative counts from the end) was aborted by the client, waiting up to
   * `ms` for the close to arrive: the backend aborts its request before it answers its own client, but
   * the socket's close reaches this server a moment later.
   */
  async aborted(i = -1, ms = 5000) {
    const r = this.requests.at(i);
    const deadline = Date.now() + ms;
    while (r && !r.aborted && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
    return Boolean(r?.aborted);
  }

  /** The tool names offered in recorded request i (negative counts from the end). */
  offered(i = -1) {
    const r = this.requests.at(i);
    return (r?.body?.tools ?? []).map(t => t.function.name);
  }

  /** The system message of recorded request i. */
  system(i = -1) {
    const r = this.requests.at(i);
    return r?.body?.messages?.find(m => m.role === 'system')?.content;
  }

  async close() {
    for (const s of this.sockets) s.destroy();
    await new Promise(resolve => this.server.close(resolve));
  }

  handle(req, res) {
    let raw = '';
    req.on('data', d => (raw += d));
    req.on('end', () => {
      let body = null;
      try {
        body = JSON.parse(raw);
      } catch {
        /* recorded as null */
      }
      const record = { method: req.method, url: req.url, headers: req.headers, body, aborted: false };
      this.requests.push(record);
      // the client went away before the answer was complete (a cancelled or timed-out call)
      res.on('close', () => {
        if (!res.writableFinished) {
          record.aborted = true;
          record.abortedAt = Date.now();
        }
      });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let turn = this.queue.length > 0 ? this.queue.shift() : this.responder;
      if (typeof turn === 'function') turn = turn(body);
      if (!turn) {
        this.problems.push(`request ${this.requests.length} came with no scripted turn left`);
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted model: no turn left' } }));
        return;
      }
      if (turn.when && !turn.when(body)) {
        this.problems.push(`request ${this.requests.length} did not match its turn's when()`);
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted model: unexpected request' } }));
        return;
      }
      this.answer(turn, body, req, res);
    });
  }

  answer(turn, body, req, res) {
    let closed = false;
    res.on('close', () => (closed = true));
    const later = (ms, fn) => {
      const t = setTimeout(() => !closed && fn(), ms);
      res.on('close', () => clearTimeout(t));
    };
    if (turn.hangUp) {
      req.socket.destroy();
      return;
    }
    if (turn.status) {
      later(turn.stallMs ?? 0, () => {
        res.writeHead(turn.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: turn.content ?? 'scripted failure', type: 'server_error' } }));
      });
      return;
    }
    const model = body?.model ?? 'scripted';
    const id = `chatcmpl-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const calls = (turn.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${this.requests.length}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
    }));
    const finish = turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    const content = turn.chunks ? turn.chunks.join('') : (turn.content ?? '');
    if (!body?.stream) {
      later(turn.stallMs ?? 0, () => {
        const message = { role: 'assistant', content: calls.length > 0 && content === '' ? null : content };
        if (calls.length > 0) {
          message.tool_calls = calls.map(c => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }] }));
      });
      return;
    }
    const chunk = (delta, finishReason = null) =>
      JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
    const data = [chunk({ role: 'assistant', content: '' })];
    for (const piece of turn.chunks ?? (content === '' ? [] : [content])) data.push(chunk({ content: piece }));
    calls.forEach((c, index) => {
      const half = Math.floor(c.arguments.length / 2);
      data.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments.slice(0, half) } }] }));
      data.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(half) } }] }));
    });
    data.push(chunk({}, finish));
    const payloads = turn.rawData ?? [...data, '[DONE]'];
    const start = () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const stallAt = turn.stallMs && turn.stallAfterChunks !== undefined ? turn.stallAfterChunks : -1;
      if (turn.intervalMs) {
        turn.sent = [];
        let i = 0;
        const step = () => {
          if (closed) return;
          if (i >= payloads.length) return res.end();
          const p = payloads[i++];
          res.write(`data: ${p}\n\n`);
          const piece = typeof p === 'string' && p.startsWith('{') ? JSON.parse(p).choices?.[0]?.delta?.content : undefined;
          if (piece) turn.sent.push({ text: piece, at: Date.now() });
          setTimeout(step, turn.intervalMs);
        };
        return step();
      }
      payloads.forEach((p, i) => {
        if (stallAt >= 0 && i >= stallAt) return;
        res.write(`data: ${p}\n\n`);
      });
      if (stallAt >= 0) {
        later(turn.stallMs, () => res.end());
        return;
      }
      res.end();
    };
    if (turn.stallMs && turn.stallAfterChunks === undefined) later(turn.stallMs, start);
    else start();
  }
}

async function startModel() {
  return new ScriptedModel().start();
}

/**
 * One scripted model for a whole test file: started before its first test and closed after its last
 * (node:test hooks at the top level); the returned instance is usable inside the tests.
 */
function modelForFile() {
  const { before, after } = require('node:test');
  const model = new ScriptedModel();
  before(() => model.start());
  after(() => model.close());
  return model;
}

module.exports = { ScriptedModel, startModel, modelForFile };
