'use strict';
/**
 * A Python MCP server from PyPI: `mcp-server-time` (the reference time server, built on FastMCP, installed
 * by scripts/setup-mcp-python.sh into the project's venv `.tools/mcp-python`), added through the admin
 * API as the MCP dialog adds it, started in the OS sandbox (the venv bound read-only, runtime/mcp/venv.ts),
 * its tools converted from their pydantic schemas and registered, and `get_current_time` called from a chat
 * turn with the scripted model; a call with an argument its schema refuses is denied before the server.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call, BACKEND_ROOT } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();
const TIME_SERVER = path.resolve(BACKEND_ROOT, '..', '..', '.tools', 'mcp-python', 'bin', 'mcp-server-time');

const ok = r => {
  assert.equal(r.status, 200, r.text);
  return r.body.data;
};

for (const [label, makeBackend] of storageBackends({ only: 'sqlite' })) {
  describeWithBackend(`Python MCP server · ${label}`, makeBackend, backend => {
    test('mcp-server-time from PyPI: started in the sandbox from its venv, its tools registered, get_current_time called from the chat', async () => {
      assert.ok(fs.existsSync(TIME_SERVER), `${TIME_SERVER} is missing: run scripts/setup-mcp-python.sh (scripts/setup.sh runs it)`);
      model.reset();
      const db = await backend.fresh();
      const work = tmpDir();
      await withServer({ ...db.env, ...modelEnv(model) }, async s => {
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'time', transport: 'stdio', command: TIME_SERVER, args: ['--local-timezone=UTC'] }));
        const [time] = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.equal(time.state.status, 'connected', JSON.stringify(time.state));
        assert.deepEqual([...time.state.tools].sort(), ['mcp__time__convert_time', 'mcp__time__get_current_time']);
        assert.deepEqual(time.state.skipped, []);
        const agent = await addAgent(s, { name: 'clock', toolsets: ['base', 'mcp:time'] });
        model.push(
          {
            toolCalls: [
              { id: 't1', name: 'mcp__time__get_current_time', arguments: { timezone: 'Asia/Shanghai' } },
              { id: 't2', name: 'mcp__time__get_current_time', arguments: { timezone: 42 } },
            ],
          },
          { content: 'it is late' }
        );
        const before = Date.now();
        const r = await chat(s, { agentId: agent.id, message: 'what time is it in Shanghai?', sessionCwd: work });
        assert.equal(r.status, 200, r.text);
        assert.ok(model.offered(0).includes('mcp__time__get_current_time'), JSON.stringify(model.offered(0)));
        const [now, bad] = r.body.data.toolCalls;
        assert.deepEqual([now.decision, now.ok], ['main-process-proxy', true], JSON.stringify(now));
        const answer = JSON.parse(now.output);
        assert.equal(answer.timezone, 'Asia/Shanghai');
        assert.match(answer.datetime, /\+08:00$/);
        assert.ok(Math.abs(Date.parse(answer.datetime) - before) < 120_000, answer.datetime);
        assert.deepEqual([bad.decision, bad.reason, bad.ok], ['denied', 'invalid_tool_arguments', false], JSON.stringify(bad));
        assert.equal(r.body.data.reply, 'it is late');
      });
    });
  });
}
