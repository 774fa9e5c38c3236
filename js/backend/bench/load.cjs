#!/usr/bin/env node
'use strict';
// The scale-out load test (docs/deployment.md): TURNS chat turns at once across INSTANCES backends on one
// private MariaDB, with a private redis-server as their bus — all started here, as test/bus.test.js does —
// and the scripted model (test/support/model.js) streaming every answer in CHUNKS pieces INTERVAL ms apart.
// Each turn is a new session on its own WebSocket, sent to instance i % INSTANCES, all sent together.
// Reported:
// - lost: turns whose final message is not stored exactly once (read from the database), or that did not
//   end `done` on their socket — must be 0;
// - time to first token: from the chat message sent to its first `delta` on the WebSocket client (p50,
//   p95, max), beside the scripted model's own (from the request's arrival to its first content piece);
// - the turns' wall time, and how often the progress rows were written per turn (a database trigger counts).
// Needs the backend built (npm run build), mariadbd and redis-server. Exits 1 when a turn is lost.
//   node js/backend/bench/load.cjs [--turns 200] [--instances 3] [--chunks 8] [--interval-ms 20] [--out file.json]
const fs = require('node:fs');
const path = require('node:path');
const support = path.resolve(__dirname, '..', 'test', 'support');
const { mariadbBackend } = require(path.join(support, 'db.js'));
const { startRedis } = require(path.join(support, 'redis.js'));
const { startModel } = require(path.join(support, 'model.js'));
const { startServer } = require(path.join(support, 'server.js'));
const { addAgent, modelEnv, openWs } = require(path.join(support, 'chat.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
const summary = values => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p95: percentile(s, 0.95), max: s.at(-1) ?? NaN };
};

/**
 * Runs the load test; resolves with its figures. `log(line)`: progress lines.
 * { turns, instances, chunks, intervalMs, turnTimeoutMs, serverEnv (more variables for the backends) }
 */
async function runLoad({ turns = 200, instances = 3, chunks = 8, intervalMs = 20, turnTimeoutMs = 120000, serverEnv = {}, log = () => {} } = {}) {
  const backend = await mariadbBackend();
  const servers = [];
  const sockets = [];
  let redis = null;
  let model = null;
  try {
    const db = await backend.fresh();
    redis = await startRedis();
    model = await startModel();
    // every answer the same: CHUNKS pieces, INTERVAL ms apart; the model's own first token is timed here
    const answers = [];
    const pieces = i => Array.from({ length: chunks }, (_, k) => `t${i}p${k} `);
    model.respond(body => {
      const i = Number(/^turn (\d+)$/.exec(body?.messages?.at(-1)?.content ?? '')?.[1] ?? -1);
      const turn = { chunks: pieces(i), intervalMs, receivedAt: Date.now() };
      answers.push(turn);
      return turn;
    });
    // each instance may run every turn sent to it at once
    const perInstance = Math.ceil(turns / instances);
    const env = { ...db.env, ...modelEnv(model), REDIS_URL: redis.url, NETACLAW_LIVE_TURNS_MAX: String(Math.max(64, perInstance)), ...serverEnv };
    log(`starting ${instances} instances on MariaDB + Redis`);
    const started = await Promise.allSettled(Array.from({ length: instances }, () => startServer(env, { timeoutMs: 120000 })));
    for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    const agent = await addAgent(servers[0], { name: 'load', toolsets: ['base'] });
    // every progress write, counted by the database
    await db.sql('CREATE TABLE bench_progress_writes (id INT AUTO_INCREMENT PRIMARY KEY, sessionId INT NOT NULL)');
    for (const [name, when] of [
      ['bench_progress_inserted', 'INSERT'],
      ['bench_progress_updated', 'UPDATE'],
    ]) {
      await db.sql(`CREATE TRIGGER ${name} AFTER ${when} ON netaclaw_turn_progress FOR EACH ROW INSERT INTO bench_progress_writes (sessionId) VALUES (NEW.sessionId)`);
    }

    log(`opening ${turns} WebSockets`);
    const clients = [];
    for (let i = 0; i < turns; i++) {
      const s = openWs(servers[i % instances]);
      sockets.push(s);
      clients.push(s);
    }
    await Promise.all(clients.map(s => s.opened));
    log(`sending ${turns} chat turns at once`);
    const began = Date.now();
    const results = await Promise.all(
      clients.map(async (s, i) => {
        const first = s.next(e => e.type === 'delta' || e.type === 'error', turnTimeoutMs);
        const end = s.next(e => e.type === 'done' || e.type === 'error', turnTimeoutMs);
        const sentAt = Date.now();
        s.send({ type: 'chat', agentId: agent.id, message: `turn ${i}` });
        try {
          const f = await first;
          const firstAt = Date.now();
          const e = await end;
          return { i, ok: e.type === 'done', sessionId: e.sessionId ?? f.sessionId ?? null, ttft: f.type === 'delta' ? firstAt - sentAt : null, endAt: Date.now(), error: e.type === 'error' ? `${e.code}: ${e.message}` : null };
        } catch (err) {
          return { i, ok: false, sessionId: null, ttft: null, endAt: Date.now(), error: err.message.slice(0, 200) };
        }
      })
    );
    const wallMs = Math.max(...results.map(r => r.endAt)) - began;

    // what the database holds: each turn's answer stored once, in its own session
    const rows = await db.sql("SELECT sessionId, content FROM netaclaw_message WHERE role = 'assistant'");
    const stored = new Map();
    for (const r of rows) {
      const key = `${r.sessionId}\u0000${r.content}`;
      stored.set(key, (stored.get(key) ?? 0) + 1);
    }
    const lost = [];
    for (const r of results) {
      const want = pieces(r.i).join('');
      const times = r.sessionId == null ? 0 : (stored.get(`${r.sessionId}\u0000${want}`) ?? 0);
      if (!r.ok || times !== 1) lost.push({ turn: r.i, instance: r.i % instances, ended: r.ok, stored: times, error: r.error });
    }
    const [{ n: writes }] = await db.sql('SELECT COUNT(*) AS n FROM bench_progress_writes');
    const modelFirst = answers.filter(a => a.sent?.length > 0).map(a => a.sent[0].at - a.receivedAt);
    return {
      turns,
      instances,
      chunks,
      intervalMs,
      liveTurnsMax: Number(env.NETACLAW_LIVE_TURNS_MAX),
      database: 'MariaDB (private, loopback)',
      bus: 'redis-server (private, loopback)',
      node: process.version,
      lost: lost.length,
      lostTurns: lost.slice(0, 20),
      assistantRows: rows.length,
      wallMs,
      ttftMs: summary(results.filter(r => r.ttft !== null).map(r => r.ttft)),
      modelTtftMs: summary(modelFirst),
      progressWritesPerTurn: Number(writes) / turns,
      modelRequests: model.requests.length,
      modelProblems: model.problems.slice(0, 5),
    };
  } finally {
    await Promise.all(sockets.map(s => s.close().catch(() => undefined)));
    await Promise.all(servers.map(s => s.stop().catch(() => undefined)));
    if (model) await model.close().catch(() => undefined);
    if (redis) await redis.close().catch(() => undefined);
    await backend.stop().catch(() => undefined);
  }
}

function table(r) {
  const ms = v => (Number.isFinite(v) ? `${Math.round(v)} ms` : '—');
  return [
    `| ${r.turns} turns at once, ${r.instances} instances, MariaDB + Redis (${r.chunks} pieces ${r.intervalMs} ms apart) | p50 | p95 | max |`,
    '|---|---|---|---|',
    `| time to first token at the WebSocket client | ${ms(r.ttftMs.p50)} | ${ms(r.ttftMs.p95)} | ${ms(r.ttftMs.max)} |`,
    `| the scripted model's own (request → first piece) | ${ms(r.modelTtftMs.p50)} | ${ms(r.modelTtftMs.p95)} | ${ms(r.modelTtftMs.max)} |`,
    '',
    `lost: ${r.lost} of ${r.turns} · all turns ended in ${ms(r.wallMs)} · progress row writes per turn: ${r.progressWritesPerTurn.toFixed(1)}`,
  ].join('\n');
}

module.exports = { runLoad, table };

if (require.main === module) {
  const opts = {
    turns: Number(arg('--turns', '200')),
    instances: Number(arg('--instances', '3')),
    chunks: Number(arg('--chunks', '8')),
    intervalMs: Number(arg('--interval-ms', '20')),
    log: line => process.stderr.write(`load: ${line}\n`),
  };
  const out = arg('--out', null);
  runLoad(opts).then(
    r => {
      process.stdout.write(`${table(r)}\n\n${JSON.stringify(r)}\n`);
      if (out) fs.writeFileSync(out, JSON.stringify(r, null, 2) + '\n');
      if (r.lost > 0) {
        process.stderr.write(`load: ${r.lost} turn(s) lost: ${JSON.stringify(r.lostTurns)}\n`);
        process.exit(1);
      }
    },
    err => {
      process.stderr.write(`load: ${err.stack || err}\n`);
      process.exit(1);
    }
  );
}
