'use strict';
// Runs a test file's suite once on SQLite and once on a private MariaDB server (when mariadbd is
// installed; loud notice otherwise, and a failure with REQUIRE_MARIADB=1; SKIP_MARIADB=1 skips it).
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { sqliteBackend, mariadbBackend, mariadbBinaries } = require('./db');

/**
 * Calls defineTests(backend) inside one `describe` per storage backend; `backend.fresh()` gives a new
 * empty database ({ env, dataDir, sql }) on it.
 */
function runOnEveryBackend(defineTests) {
  const defineSuite = (label, makeBackend) =>
    describe(label, () => {
      let started;
      before(async () => {
        started = await makeBackend();
      });
      after(async () => {
        if (started) await started.stop();
      });
      defineTests({ fresh: () => started.fresh() });
    });

  defineSuite('SQLite', async () => sqliteBackend());

  const skipMariadb = process.env.SKIP_MARIADB === '1';
  if (mariadbBinaries() && !skipMariadb) {
    defineSuite('MariaDB (DB_TYPE=mysql)', async () => mariadbBackend());
    return;
  }
  const why = skipMariadb
    ? 'SKIP_MARIADB=1 is set'
    : 'MariaDB is NOT installed (no mariadbd / mariadb-install-db on PATH or in /usr/sbin)';
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
}

module.exports = { runOnEveryBackend };
