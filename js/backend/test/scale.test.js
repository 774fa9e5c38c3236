'use strict';
/**
 * The scale-out load test, small (bench/load.cjs; scripts/bench.sh runs it with 200 turns): LOAD_SCALE_TURNS
 * (20) chat turns at once across three real backends on one MariaDB, with a real redis-server as their bus
 * and the scripted model streaming. None lost: every turn ends `done` on its socket and its answer is stored
 * exactly once; the time to first token at the client is measured beside the model's own; with Redis up, a
 * turn's progress row is written a few times, not every 300 ms.
 *
 * Without mariadbd or redis-server: a loud banner and a skipped test, or a failure with REQUIRE_MARIADB=1 /
 * REQUIRE_REDIS=1.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { storageBackends } = require('./support/suites');
const { redisBinary } = require('./support/redis');
const { runLoad } = require('../bench/load.cjs');

const TURNS = Number(process.env.LOAD_SCALE_TURNS ?? 20);

if (!redisBinary()) {
  const why = 'redis-server is NOT installed (no redis-server on PATH or in /usr/bin)';
  process.stderr.write(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!!  ${why}:\n!!  the scale-out load test was NOT run.\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`
  );
  if (process.env.REQUIRE_REDIS === '1')
    test('scale-out load test (REQUIRE_REDIS=1)', () => assert.fail(`REQUIRE_REDIS=1 but the load test cannot run: ${why}`));
  else test.skip(`scale-out load test NOT RUN: ${why}`, () => {});
} else {
  for (const [label] of storageBackends({ only: 'mariadb' })) {
    test(`${TURNS} chat turns at once across 3 instances · ${label} + Redis: none lost`, async t => {
      const r = await runLoad({ turns: TURNS, instances: 3, chunks: 8, intervalMs: 20, turnTimeoutMs: 60000 });
      t.diagnostic(
        `time to first token: p50 ${r.ttftMs.p50} ms, p95 ${r.ttftMs.p95} ms (the model's own p95 ${r.modelTtftMs.p95} ms); all ended in ${r.wallMs} ms; progress writes per turn ${r.progressWritesPerTurn}`
      );
      assert.deepEqual(r.lostTurns, []);
      assert.equal(r.lost, 0);
      assert.equal(r.assistantRows, TURNS, 'one answer stored per turn, no more');
      assert.equal(r.modelRequests, TURNS);
      assert.deepEqual(r.modelProblems, []);
      assert.equal(r.ttftMs.n, TURNS, 'every turn streamed a first token');
      assert.ok(r.modelTtftMs.p95 >= 20, `the model waits its interval before its first piece: ${r.modelTtftMs.p95} ms`);
      assert.ok(r.ttftMs.p50 >= r.modelTtftMs.p50, 'the client cannot see a token before the model sent it');
      // the bus carries the events: the row at the first event, the end, and a snapshot at most every 3 s
      assert.ok(r.progressWritesPerTurn <= 4, `${r.progressWritesPerTurn} progress writes per turn`);
    });
  }
}
