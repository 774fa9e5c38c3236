'use strict';
/**
 * The backend's log: every line through Midway's logger, in Midway's text format by default and one JSON
 * object a line with LOG_FORMAT=json (js/backend/README.md "Log"); an unknown LOG_FORMAT stops the start.
 * Storage does not matter here: SQLite only.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { startServer, call } = require('./support/server');
const { sqliteBackend } = require('./support/db');

const LEVELS = new Set(['info', 'warn', 'error']);

describe('log', () => {
  let backend;
  before(async () => {
    backend = await sqliteBackend();
  });
  after(async () => {
    if (backend) await backend.stop();
  });

  test('LOG_FORMAT=json: every line, from the first at start to the last at stop, is one JSON object {time, level, pid, message}', async () => {
    const db = await backend.fresh();
    const s = await startServer({ ...db.env, LOG_FORMAT: 'json' });
    let stopped = false;
    try {
      assert.equal((await call(s, 'GET', '/health')).status, 200);
      await s.sigterm();
      stopped = true;
    } finally {
      if (!stopped) await s.stop();
    }
    const lines = s
      .log()
      .split('\n')
      .filter(l => l !== '');
    assert.ok(lines.length >= 5, s.log());
    const entries = lines.map(l => {
      let e;
      assert.doesNotThrow(() => (e = JSON.parse(l)), `not a JSON line: ${l}`);
      return e;
    });
    for (const e of entries) {
      assert.deepEqual(Object.keys(e), ['time', 'level', 'pid', 'message'], JSON.stringify(e));
      assert.equal(new Date(e.time).toISOString(), e.time, JSON.stringify(e));
      assert.ok(LEVELS.has(e.level), JSON.stringify(e));
      assert.equal(e.pid, s.child.pid, JSON.stringify(e));
      assert.equal(typeof e.message, 'string');
    }
    const messages = entries.map(e => e.message);
    // the lines the text format prints, word for word (scripts and tests read them)
    assert.ok(messages.includes(`[netaclaw] listening on ${s.url}/`), messages.join('\n'));
    assert.ok(
      messages.some(m => m.startsWith('[netaclaw] storage: sqlite ')),
      messages.join('\n')
    );
    assert.ok(
      messages.some(m => /^\[netaclaw\] catalog sync: \d+ inserts, \d+ updates, \d+ orphans/.test(m)),
      messages.join('\n')
    );
  });

  test("the text format is Midway's: date, time, level, pid, message", async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const pid = s.child.pid;
      const line = s
        .log()
        .split('\n')
        .find(l => l.includes('listening on'));
      assert.match(line, new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} INFO ${pid} \\[netaclaw\\] listening on ${s.url}/$`));
      for (const l of s
        .log()
        .split('\n')
        .filter(l => l.includes('[netaclaw]'))) {
        assert.match(l, new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} (INFO|WARN|ERROR) ${pid} \\[netaclaw\\] `), l);
      }
    } finally {
      await s.stop();
    }
  });

  test('an unknown LOG_FORMAT stops the start, naming the variable and the values it takes', async () => {
    const db = await backend.fresh();
    const s = await startServer({ ...db.env, LOG_FORMAT: 'yaml' }, { expectExit: true });
    assert.notEqual(s.exitCode, 0);
    assert.match(s.log(), /LOG_FORMAT must be text or json, got "yaml"/);
  });
});
