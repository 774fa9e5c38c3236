'use strict';
// Which storage backends a test file runs on: SQLite always, and a private MariaDB server when it is
// installed. Without MariaDB: a loud banner and a skipped test, or a failure with REQUIRE_MARIADB=1;
// SKIP_MARIADB=1 skips it on purpose.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { sqliteBackend, mariadbBackend, mariadbBinaries } = require('./db');

const MARIADB_LABEL = 'MariaDB (DB_TYPE=mysql)';

/**
 * `[label, makeBackend]` pairs for the backends that can run here (`only`: 'sqlite' or 'mariadb').
 * When MariaDB cannot run, registers the skipped (or, with REQUIRE_MARIADB=1, failing) test that says so.
 */
function storageBackends({ only } = {}) {
  const out = [];
  if (only !== 'mariadb') out.push(['SQLite', async () => sqliteBackend()]);
  if (only === 'sqlite') return out;
  const skipMariadb = process.env.SKIP_MARIADB === '1';
  if (mariadbBinaries() && !skipMariadb) {
    out.push([MARIADB_LABEL, async () => mariadbBackend()]);
    return out;
  }
  const why = skipMariadb ? 'SKIP_MARIADB=1 is set' : 'MariaDB is NOT installed (no mariadbd / mariadb-install-db on PATH or in /usr/sbin)';
  const banner =
    '\n' +
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' +
    `!!  ${why}:\n` +
    '!!  the MySQL/MariaDB suite was NOT run.\n' +
    (skipMariadb ? '' : '!!  Install it with `apt-get install mariadb-server` to run it.\n') +
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n';
  process.stderr.write(banner);
  if (process.env.REQUIRE_MARIADB === '1') {
    test('MariaDB suite (REQUIRE_MARIADB=1)', () => {
      assert.fail(`REQUIRE_MARIADB=1 but the MariaDB suite cannot run: ${why}`);
    });
  } else {
    test.skip(`MariaDB suite NOT RUN: ${why}`, () => {});
  }
  return out;
}

/**
 * describe(title) whose tests share one backend, made before them and stopped after them. `body`
 * gets the backend (a stand-in that forwards to it once it exists) and defines the tests.
 */
function describeWithBackend(title, makeBackend, body) {
  describe(title, () => {
    let current;
    before(async () => {
      current = await makeBackend();
    });
    after(async () => {
      if (current) await current.stop();
    });
    body(new Proxy({}, { get: (_, key) => current[key] }));
  });
}

/** Calls defineTests(backend) in one describe per storage backend (`backend.fresh()`: a new empty database). */
function runOnEveryBackend(defineTests) {
  for (const [label, makeBackend] of storageBackends()) describeWithBackend(label, makeBackend, defineTests);
}

module.exports = { storageBackends, describeWithBackend, runOnEveryBackend };
