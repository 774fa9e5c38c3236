'use strict';
// Chat helpers for the tests: the REST call, a WebSocket client that collects a turn's events, and
// an agent/server setup against the scripted model.
const assert = require('node:assert/strict');
const WebSocket = require('ws');
const { call, TOKEN } = require('./server');

/** POST /api/netaclaw/chat. */
function chat(server, body, opts) {
  return call(server, 'POST', '/api/netaclaw/chat', body, opts);
}

/** Opens the chat WebSocket (token in the header by default, or `?token=` with { query: true }). */
function openWs(server, { token = TOKEN, query = false, path = '/ws/netaclaw/chat' } = {}) {
  const url = server.url.replace(/^http/, 'ws') + path + (query && token !== null ? `?token=${encodeURIComponent(token)}` : '');
  const headers = !query && token !== null ? { authorization: `Bearer ${token}` } : {};
  const ws = new WebSocket(url, { headers });
  const events = [];
  const waiters = [];
  ws.on('message', data => {
    const e = JSON.parse(data.toString());
    events.push(e);
    for (const w of [...waiters]) {
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  });
  const opened = new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', d => (body += d));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
  return {
    ws,
    events,
    opened,
    send: msg => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
    /** The next event (from now on, or already received after `from`) matching pred. */
    next(pred, timeoutMs = 30000) {
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(events)}`)), timeoutMs);
        waiters.push({
          pred,
          resolve: e => {
            clearTimeout(t);
            resolve(e);
          },
        });
      });
    },
    close: () =>
      new Promise(resolve => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', resolve);
        ws.close();
      }),
  };
}

/** One chat turn over a fresh WebSocket: every event until `done` or `error`. */
async function wsChat(server, request, opts) {
  const c = openWs(server, opts);
  await c.opened;
  const end = c.next(e => e.type === 'done' || e.type === 'error');
  c.send({ type: 'chat', ...request });
  await end;
  await c.close();
  return c.events;
}

/** Adds an agent and returns its row. */
async function addAgent(server, agent) {
  const r = await call(server, 'POST', '/admin/netaclaw/agent/add', agent);
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

/** Env that points the default channel at the scripted model. */
function modelEnv(model, extra = {}) {
  return { NETACLAW_MODEL_BASE_URL: model.baseUrl, NETACLAW_MODEL: 'scripted-1', NETACLAW_MODEL_MAX_RETRIES: '0', ...extra };
}

/**
 * A new temp folder (its real path: the runtime compares real paths), for a session's workspace, given to
 * the sandbox user as an operator gives a workspace to the user its agents run as.
 */
function tmpDir(prefix = 'netaclaw-chat-') {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { giveToSandbox } = require('./runtime');
  return giveToSandbox(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix))));
}

module.exports = { chat, openWs, wsChat, addAgent, modelEnv, tmpDir };
