'use strict';
/**
 * Load: concurrent sub-agent batches and concurrent chat sessions (the scripted model) against one backend,
 * on SQLite (with another process reading and writing the same file meanwhile) and on MariaDB. Every
 * request is answered 200; every row sent is stored exactly once (batches, their calls, messages, the
 * sessions' calls, memories); no SQLITE_BUSY (nor any 5xx) reaches a client. Latency percentiles per
 * operation are printed. Bounded, loopback only.
 *
 * Sizes: LOAD_BATCHES (20), LOAD_SESSIONS (50), LOAD_TURNS per session (1), LOAD_ROUNDS (1);
 * scripts/load-backend.sh runs a longer version (its last figures are in SECURITY.md).
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { startModel } = require('./support/model');
const { chat, addAgent, modelEnv } = require('./support/chat');
const { workspace } = require('./support/runtime');

function size(name, def) {
  const v = Number(process.env[name] ?? def);
  if (!Number.isInteger(v) || v < 1 || v > 10000) throw new Error(`${name} must be an integer between 1 and 10000`);
  return v;
}

const BATCHES = size('LOAD_BATCHES', 20);
const SESSIONS = size('LOAD_SESSIONS', 50);
const TURNS = size('LOAD_TURNS', 1);
const ROUNDS = size('LOAD_ROUNDS', 1);
/** The calls of every batch: worker-local ones and ones the main process runs. */
const batchCalls = (round, i) => [
  { name: 'read_file', arguments: { path: 'a.txt' } },
  { name: 'grep', arguments: { pattern: 'beta' } },
  { name: 'write_file', arguments: { path: `out/r${round}-b${i}.txt`, content: `batch ${i} of round ${round}` } },
  { name: 'memory_save', arguments: { content: `memory of batch ${i}, round ${round}` } },
];
const CALLS = batchCalls(0, 0).length;

/** Nearest-rank percentiles of durations (ms). */
function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  const at = p => v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
  return { n: v.length, p50: at(50), p95: at(95), max: v[v.length - 1] };
}

const fmt = (label, s) => `${label}: n=${s.n} p50=${Math.round(s.p50)} ms p95=${Math.round(s.p95)} ms max=${Math.round(s.max)} ms`;

/** The scripted model as a responder: a fresh user message → one read_file call; a tool result → an answer. */
function responder(body) {
  const last = body?.messages?.at(-1);
  if (last?.role === 'user') return { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
  return { content: `answered after ${last?.role}` };
}

/** Starts the neighbour process on a SQLite file; stop() ends it and resolves its report. */
function neighbour(file) {
  const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'sqlite-neighbour.js'), file], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', d => (out += d));
  child.stderr.on('data', d => (err += d));
  const done = new Promise(resolve => child.on('exit', code => resolve(code)));
  return {
    async stop() {
      child.stdin.end();
      const code = await done;
      assert.equal(code, 0, `neighbour failed: ${err}`);
      return JSON.parse(out.trim());
    },
  };
}

const count = async (db, sql, params) => Number((await db.sql(sql, params))[0].n);

function defineTests(backend) {
  test(`${BATCHES} concurrent batches and ${SESSIONS} concurrent chat sessions (${TURNS} turn(s), ${ROUNDS} round(s)): every row once, no 5xx`, async t => {
    const db = await backend.fresh();
    const model = await startModel();
    const ws = workspace();
    const sqlite = db.env.DB_TYPE === 'sqlite';
    const times = { 'batch run (HTTP, 4 calls)': [], 'chat turn (HTTP, 2 model calls + 1 tool call)': [] };
    try {
      // the model client's default retries, as deployed: a keep-alive connection the model service closed
      // just as it was reused is tried again (never twice answered: the script holds one turn per request)
      await withServer({ ...db.env, ...modelEnv(model, { NETACLAW_MODEL_MAX_RETRIES: '2' }) }, async s => {
        const chatAgent = await addAgent(s, { name: 'load-chat', toolsets: ['base'] });
        const batchAgent = await addAgent(s, { name: 'load-batch', toolsets: ['base', 'memory'], memoryEnabled: true });
        model.push(...Array.from({ length: 2 * SESSIONS * TURNS * ROUNDS }, () => responder));
        const side = sqlite ? neighbour(db.env.DB_PATH) : null;
        const failures = [];
        const timed = async (op, fn) => {
          const t0 = performance.now();
          const r = await fn();
          times[op].push(performance.now() - t0);
          if (r.status !== 200) failures.push(`${op}: ${r.status} ${r.text.slice(0, 300)}`);
          return r;
        };
        const started = Date.now();
        for (let round = 1; round <= ROUNDS; round++) {
          const batches = Array.from({ length: BATCHES }, (_, i) =>
            timed('batch run (HTTP, 4 calls)', () =>
              call(
                s,
                'POST',
                '/admin/netaclaw/subagent/run',
                {
                  agentId: batchAgent.id,
                  sessionCwd: ws.root,
                  writePermitted: true,
                  calls: batchCalls(round, i),
                },
                { timeoutMs: 180000 }
              )
            ).then(r => {
              if (r.status === 200 && r.body.data.status !== 'completed') failures.push(`batch ${r.body.data.id}: ${r.body.data.status} ${r.body.data.error}`);
            })
          );
          const sessions = Array.from({ length: SESSIONS }, async (_, i) => {
            let sessionId;
            for (let turn = 1; turn <= TURNS; turn++) {
              const body = { agentId: chatAgent.id, message: `round ${round} session ${i} turn ${turn}` };
              if (sessionId) body.sessionId = sessionId;
              else body.sessionCwd = ws.root;
              const r = await timed('chat turn (HTTP, 2 model calls + 1 tool call)', () => chat(s, body, { timeoutMs: 180000 }));
              if (r.status !== 200) return;
              sessionId = r.body.data.sessionId;
              if (r.body.data.toolCalls.length !== 1 || !r.body.data.toolCalls[0].ok)
                failures.push(`session ${sessionId}: ${JSON.stringify(r.body.data.toolCalls)}`);
            }
          });
          await Promise.all([...batches, ...sessions]);
        }
        const wall = Date.now() - started;
        const report = side ? await side.stop() : null;
        assert.deepEqual(failures, [], 'every request answered 200, every batch completed, every tool call ran');
        assert.deepEqual(model.problems, []);
        if (report) {
          assert.equal(report.journalMode, 'wal', 'the backend put the file in WAL mode');
          assert.deepEqual(report.errors, [], 'the neighbour was never refused either');
          assert.ok(report.rounds > 0);
          t.diagnostic(`a second process read (200 ms transactions) and wrote (30 ms) the file ${report.rounds} times meanwhile`);
        }

        // every row once: batches, their calls (seq 1..CALLS each), memories, sessions, messages, session calls
        const batchesN = BATCHES * ROUNDS;
        const turnsN = SESSIONS * TURNS * ROUNDS;
        assert.equal(await count(db, "SELECT COUNT(*) AS n FROM netaclaw_subagent_batch WHERE status = 'completed'"), batchesN);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_subagent_batch'), batchesN);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_tool_call WHERE batchId IS NOT NULL'), batchesN * CALLS);
        assert.equal(
          await count(db, 'SELECT COUNT(*) AS n FROM (SELECT batchId, seq FROM netaclaw_tool_call WHERE batchId IS NOT NULL GROUP BY batchId, seq) x'),
          batchesN * CALLS,
          'no (batch, seq) twice'
        );
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_tool_call WHERE batchId IS NOT NULL AND (seq < 1 OR seq > ?)', [CALLS]), 0);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_memory WHERE agentId = ?', [batchAgent.id]), batchesN);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_session'), SESSIONS * ROUNDS);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_message'), turnsN * 4);
        assert.equal(
          await count(
            db,
            'SELECT COUNT(*) AS n FROM netaclaw_session s WHERE (SELECT COUNT(*) FROM netaclaw_message m WHERE m.sessionId = s.id) = ? AND (SELECT MAX(seq) FROM netaclaw_message m WHERE m.sessionId = s.id) = ?',
            [4 * TURNS, 4 * TURNS]
          ),
          SESSIONS * ROUNDS,
          'each session: its messages at seq 1..4 × turns, none twice, none missing'
        );
        assert.equal(await count(db, "SELECT COUNT(*) AS n FROM netaclaw_message WHERE role = 'error'"), 0);
        assert.equal(await count(db, 'SELECT COUNT(*) AS n FROM netaclaw_tool_call WHERE sessionId IS NOT NULL AND batchId IS NULL'), turnsN);
        assert.equal(
          await count(db, 'SELECT COUNT(*) AS n FROM (SELECT sessionId, seq FROM netaclaw_tool_call WHERE batchId IS NULL GROUP BY sessionId, seq) x'),
          turnsN,
          'no (session, seq) of a call twice'
        );

        // latency: per request, and per stored call
        for (const [op, values] of Object.entries(times)) t.diagnostic(fmt(op, stats(values)));
        const rows = await db.sql('SELECT batchId, decision, durationMs FROM netaclaw_tool_call');
        for (const [label, pick] of [
          ["call run in a batch's worker (read_file, grep)", r => r.batchId !== null && r.decision === 'worker-local'],
          ['call a batch proxied to the main process (write_file, memory_save)', r => r.batchId !== null && r.decision === 'main-process-proxy'],
          ["chat call run in its session's worker (read_file)", r => r.batchId === null],
        ]) {
          t.diagnostic(fmt(label, stats(rows.filter(pick).map(r => Number(r.durationMs)))));
        }
        t.diagnostic(`${batchesN} batches (${batchesN * CALLS} calls) and ${turnsN} chat turns in ${wall} ms on ${backend.name}`);
      });
    } finally {
      await model.close();
      ws.cleanup();
    }
  });
}

runOnEveryBackend(defineTests);
