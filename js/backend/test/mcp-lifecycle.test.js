'use strict';
/**
 * MCP servers as they live, through the real server, the admin API and the chat API with the scripted
 * model; the server is test/fixtures/mcp-lifecycle-server.mjs (official SDK, stdio, in the OS sandbox):
 * - a tool whose input schema the call check cannot read (a look-behind pattern, a `$ref` to the web) is
 *   never registered nor offered: it is in the state's `skipped` with the package's reason; the usable
 *   tools beside it are offered and called;
 * - a result with an image, audio, resources and a resource link reaches the model as text notes;
 * - a server that dies after a call, or that cannot start, is started again with backoff (doubling, capped,
 *   starting over after a stable period), its state showing the last lines of its stderr and the next
 *   retry; a server that comes up late has its tools joined to the catalog then;
 * - two instances on MariaDB: a refresh on one is applied by the other; an edit on one shows pending on both.
 * Every wait is a poll of the state with an overall time limit.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, startServer, call } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const { modelForFile, startModel } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();
const FIXTURE = path.join(__dirname, 'fixtures', 'mcp-lifecycle-server.mjs');
// the fixture's 1×1 PNG
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const ok = r => {
  assert.equal(r.status, 200, r.text);
  return r.body.data;
};

/** Polls `read` every 50 ms until `pred` holds of its answer (answered), or fails after `timeoutMs`. */
async function until(what, read, pred, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await read();
    if (pred(last)) return last;
    if (Date.now() > end) assert.fail(`${what}: not reached in ${timeoutMs} ms; last seen ${JSON.stringify(last)}`);
    await new Promise(r => setTimeout(r, 50));
  }
}

const stateOf = (s, id) => async () => ok(await call(s, 'GET', `/admin/netaclaw/mcp/info?id=${id}`)).state;

for (const [label, makeBackend] of storageBackends({ only: 'sqlite' })) {
  describeWithBackend(`MCP lifecycle · ${label}`, makeBackend, backend => {
    test('an unusable tool is skipped with its reason, never offered; the usable ones are offered and called; image, audio and resources reach a text channel as notes, and the image a vision channel as an image part', async () => {
      model.reset();
      const db = await backend.fresh();
      const work = tmpDir();
      await withServer({ ...db.env, ...modelEnv(model) }, async s => {
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'lc', transport: 'stdio', command: 'node', args: [FIXTURE] }));
        const [lc] = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.equal(lc.state.status, 'connected', JSON.stringify(lc.state));
        assert.deepEqual(lc.state.tools, ['mcp__lc__echo', 'mcp__lc__picture']);
        const skipped = Object.fromEntries(lc.state.skipped.map(x => [x.tool, x.reason]));
        assert.deepEqual(Object.keys(skipped).sort(), ['after', 'remote'], JSON.stringify(lc.state.skipped));
        // the package's reason, in a sentence: where in the schema, and what
        assert.match(skipped.after, /^its input schema cannot be checked, so no call of it could be allowed: .*properties\.word.*pattern/, skipped.after);
        assert.match(skipped.remote, /^its input schema cannot be checked, so no call of it could be allowed: .*properties\.item.*\$ref/, skipped.remote);
        assert.deepEqual(lc.state.stderr, []);
        assert.equal(lc.state.nextRetryAt, null);
        // not registered: no governance row for them
        const rows = ok(await call(s, 'POST', '/admin/netaclaw/tool/page', { toolset: 'mcp:lc' }));
        assert.deepEqual(rows.list.map(r => r.name).sort(), ['mcp__lc__echo', 'mcp__lc__picture']);

        const agent = await addAgent(s, { name: 'lc user', toolsets: ['base', 'mcp:lc'] });
        model.push(
          {
            toolCalls: [
              { id: 'e1', name: 'mcp__lc__echo', arguments: { text: 'hi' } },
              { id: 'p1', name: 'mcp__lc__picture', arguments: {} },
              { id: 'a1', name: 'mcp__lc__after', arguments: { word: 'ab' } },
            ],
          },
          { content: 'done' }
        );
        const r = await chat(s, { agentId: agent.id, message: 'go', sessionCwd: work });
        assert.equal(r.status, 200, r.text);
        const offered = model.offered(0);
        assert.ok(offered.includes('mcp__lc__echo') && offered.includes('mcp__lc__picture'), JSON.stringify(offered));
        assert.ok(!offered.includes('mcp__lc__after') && !offered.includes('mcp__lc__remote'), JSON.stringify(offered));
        const [echo, picture, after] = r.body.data.toolCalls;
        assert.deepEqual([echo.decision, echo.ok, echo.output], ['main-process-proxy', true, 'echo: hi'], JSON.stringify(echo));
        assert.equal(picture.ok, true, JSON.stringify(picture));
        assert.equal(
          picture.output,
          [
            'a picture and more',
            '[image: image/png, 70 bytes]',
            '[audio: audio/wav, 3,000 bytes]',
            '[resource: file:///notes.txt (text/plain)]',
            'the notes',
            '[resource: file:///blob.bin, application/octet-stream, 10 bytes]',
            '[resource link: file:///big.csv (big.csv, text/csv)]',
          ].join('\n')
        );
        assert.deepEqual([after.decision, after.reason, after.ok], ['denied', 'tool_not_offered', false], JSON.stringify(after));
        // what the text channel's model read as the picture's result: the same notes, and that it is not
        // shown the image nor played the audio; no image part anywhere
        const messages = model.requests[1].body.messages;
        const read = messages.find(m => m.role === 'tool' && m.tool_call_id === 'p1');
        assert.ok(read, JSON.stringify(messages));
        assert.ok(read.content.startsWith(picture.output), read.content);
        assert.ok(read.content.includes("[the image above is not shown to this model: its channel's model reads text only]"), read.content);
        assert.ok(read.content.includes('[the audio above is not played to this model: a channel here takes no audio]'), read.content);
        assert.ok(!JSON.stringify(messages).includes('image_url'), JSON.stringify(messages));
        assert.ok(!JSON.stringify(r.body.data).includes(PNG), 'the answer carries the note, not the image data');

        // a vision channel: the image follows the block of tool results as a user message of image parts
        const vision = ok(
          await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'vl', baseUrl: model.baseUrl, model: 'scripted-vl', capability: 'vision' })
        );
        const seer = await addAgent(s, { name: 'lc seer', toolsets: ['base', 'mcp:lc'], modelChannelId: vision.id });
        model.push(
          {
            toolCalls: [
              { id: 'p2', name: 'mcp__lc__picture', arguments: {} },
              { id: 'e2', name: 'mcp__lc__echo', arguments: { text: 'after the picture' } },
            ],
          },
          { content: 'seen' }
        );
        const v = await chat(s, { agentId: seer.id, message: 'look', sessionCwd: work });
        assert.equal(v.status, 200, v.text);
        assert.equal(v.body.data.reply, 'seen');
        const next = model.requests.at(-1).body;
        assert.equal(next.model, 'scripted-vl');
        const roles = next.messages.map(m => m.role);
        const at = next.messages.findIndex(m => m.role === 'tool' && m.tool_call_id === 'p2');
        // both results first (the API wants every result right after the call), then the images
        assert.deepEqual(roles.slice(at - 1), ['assistant', 'tool', 'tool', 'user'], JSON.stringify(roles));
        const seen = next.messages.at(-1).content;
        assert.deepEqual(
          seen.map(p => p.type),
          ['text', 'text', 'image_url']
        );
        assert.equal(seen[1].text, 'Image 1 of tool call p2 (image/png):');
        assert.equal(seen[2].image_url.url, `data:image/png;base64,${PNG}`);
        const result = next.messages[at].content;
        assert.ok(result.includes('[image: image/png, 70 bytes]') && !result.includes('is not shown'), result);
        assert.ok(result.includes('[audio: audio/wav, 3,000 bytes]\n') && result.includes('a channel here takes no audio'), result);
        // stored: the notes only
        const stored = await db.sql("SELECT output FROM netaclaw_tool_call WHERE name = 'mcp__lc__picture'");
        assert.ok(stored.length === 2 && stored.every(x => !String(x.output).includes(PNG)), JSON.stringify(stored).slice(0, 300));
      });
    });

    test('path marks an admin gives: checked on add and update, the marked argument checked against the session roots, a mark of no argument skips the tool', async () => {
      model.reset();
      const db = await backend.fresh();
      const work = tmpDir();
      await withServer({ ...db.env, ...modelEnv(model) }, async s => {
        const base = { transport: 'stdio', command: 'node', args: [FIXTURE] };
        const bad = [
          [['x'], /^pathMarks must be an object/],
          [{ echo: 'read' }, /^pathMarks\.echo must be an object/],
          [{ echo: { text: 'exec' } }, /^pathMarks\.echo\.text must be "read" or "write", got "exec"/],
          [{ '': { text: 'read' } }, /^pathMarks: a tool name must be 1 to 100 characters/],
        ];
        for (const [pathMarks, message] of bad) {
          const r = await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'pm', ...base, pathMarks });
          assert.equal(r.status, 400, r.text);
          assert.equal(r.body.error.code, 'invalid_input');
          assert.match(r.body.error.message, message);
        }
        const added = ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'pm', ...base, pathMarks: { echo: { text: 'read' } } }));
        assert.deepEqual(added.pathMarks, { echo: { text: 'read' } });
        const [pm] = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.deepEqual(pm.state.tools, ['mcp__pm__echo', 'mcp__pm__picture'], JSON.stringify(pm.state));
        const agent = await addAgent(s, { name: 'pm user', toolsets: ['base', 'mcp:pm'] });
        model.push(
          {
            toolCalls: [
              { id: 'o', name: 'mcp__pm__echo', arguments: { text: '/etc/hostname' } },
              { id: 'i', name: 'mcp__pm__echo', arguments: { text: path.join(work, 'notes.txt') } },
            ],
          },
          { content: 'done' }
        );
        const r = await chat(s, { agentId: agent.id, message: 'echo', sessionCwd: work });
        assert.equal(r.status, 200, r.text);
        const [outside, inside] = r.body.data.toolCalls;
        assert.deepEqual([outside.decision, outside.reason, outside.ok], ['denied', 'path_outside_workspace', false], JSON.stringify(outside));
        assert.deepEqual(
          [inside.decision, inside.ok, inside.output],
          ['main-process-proxy', true, `echo: ${path.join(work, 'notes.txt')}`],
          JSON.stringify(inside)
        );

        // changed marks: pending until refreshed; a mark of an argument the tool lacks skips it, with why
        const changed = ok(await call(s, 'POST', '/admin/netaclaw/mcp/update', { id: added.id, pathMarks: { echo: { file: 'write' }, gone: { p: 'read' } } }));
        assert.equal(changed.state.status, 'pending');
        const [after] = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.deepEqual(after.state.tools, ['mcp__pm__picture'], JSON.stringify(after.state));
        const skipped = Object.fromEntries(after.state.skipped.map(x => [x.tool, x.reason]));
        assert.equal(skipped.echo, 'the path marks name "file", which this tool has no argument for');
        assert.equal(skipped.gone, 'path marks are given for this tool, which the server does not list');
      });
    });

    test('a server that dies after a call is started again with backoff, its stderr and next retry shown', async () => {
      model.reset();
      const db = await backend.fresh();
      const work = tmpDir();
      const env = { ...db.env, ...modelEnv(model), NETACLAW_MCP_RESTART_FIRST_MS: '1000' };
      await withServer(env, async s => {
        const { id } = ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'dies', transport: 'stdio', command: 'node', args: [FIXTURE] }));
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
        const agent = await addAgent(s, { name: 'dies user', toolsets: ['base', 'mcp:dies'] });
        // the moments just before and just after the turn in which the server died
        const crash = async () => {
          model.push({ toolCalls: [{ id: 'x', name: 'mcp__dies__echo', arguments: { text: '__exit__' } }] }, { content: 'it died' });
          const before = Date.now();
          const r = await chat(s, { agentId: agent.id, message: 'die', sessionCwd: work });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.body.data.toolCalls[0].ok, false);
          return [before, Date.now()];
        };
        const waitOf = (st, [before, after]) => [Date.parse(st.nextRetryAt) - before, Date.parse(st.nextRetryAt) - after];
        const state = stateOf(s, id);

        const t1 = await crash();
        const down1 = await until('down after the crash', state, st => st.status === 'failed');
        assert.equal(down1.restarts, 1);
        assert.deepEqual(down1.stderr.slice(-3), ['fixture: line one', 'fixture: line two', 'fixture: exiting as asked'], JSON.stringify(down1));
        assert.match(down1.error, /^MCP server dies: the server process ended with code 3; started again at /);
        const [long1, short1] = waitOf(down1, t1);
        assert.ok(long1 >= 1000 && short1 <= 1000, `the first retry 1 s after the crash: ${long1} / ${short1} ms`);
        // started again by the backoff, with no call asking for it
        const up1 = await until('up again', state, st => st.status === 'connected');
        assert.deepEqual([up1.nextRetryAt, up1.error, up1.tools], [null, null, ['mcp__dies__echo', 'mcp__dies__picture']]);

        // dying again at once: the doubling goes on (2 s)
        const t2 = await crash();
        const down2 = await until('down again', state, st => st.status === 'failed');
        assert.equal(down2.restarts, 2, JSON.stringify(down2));
        const [long2, short2] = waitOf(down2, t2);
        assert.ok(long2 >= 2000 && short2 <= 2000, `the second retry 2 s after the crash: ${long2} / ${short2} ms`);
        await until('up again', state, st => st.status === 'connected');

        // (that the doubling starts over once a server has run for the stable period is checked on the
        // runtime's clock below, moved rather than waited for)
        // and it answers
        model.push({ toolCalls: [{ id: 'e', name: 'mcp__dies__echo', arguments: { text: 'back' } }] }, { content: 'ok' });
        const r = await chat(s, { agentId: agent.id, message: 'again', sessionCwd: work });
        assert.equal(r.body.data.toolCalls[0].output, 'echo: back', JSON.stringify(r.body.data.toolCalls[0]));
      });
    });

    test('a server that cannot start is retried with doubling waits up to the cap; once it starts, its tools join the catalog and are called', async () => {
      model.reset();
      const db = await backend.fresh();
      const work = tmpDir();
      const flags = tmpDir('netaclaw-mcp-flags-');
      const broken = path.join(flags, 'broken');
      fs.writeFileSync(broken, '');
      const env = { ...db.env, ...modelEnv(model), NETACLAW_MCP_RESTART_FIRST_MS: '400', NETACLAW_MCP_RESTART_MAX_MS: '1600' };
      await withServer(env, async s => {
        const { id } = ok(
          await call(s, 'POST', '/admin/netaclaw/mcp/add', {
            name: 'late',
            transport: 'stdio',
            command: 'node',
            args: [FIXTURE, '--crash-while', broken],
            workspaceRoots: [flags],
          })
        );
        const [late] = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.equal(late.state.status, 'failed', JSON.stringify(late.state));
        assert.match(late.state.error, /^cannot list the tools of MCP server late: .*ended with code 1: fixture: giving up/, late.state.error);
        assert.deepEqual(late.state.stderr.slice(-3), ['fixture: reading the configuration', 'fixture: the configuration is broken', 'fixture: giving up']);
        assert.equal(late.state.restarts, 1);
        assert.ok(late.state.nextRetryAt !== null);
        assert.deepEqual((await db.sql("SELECT name FROM netaclaw_tool WHERE name LIKE 'mcp__late__%'")).length, 0);

        // each failed start pushes the next one further: 400, 800, 1600, then 1600 (the cap), not 3200, 6400.
        // The wait scheduled after failed start k lies between what is left of it when seen (an upper
        // bound) and the distance from the retry before (a lower bound: that retry's start took time too).
        const state = stateOf(s, id);
        let previous = late.state;
        for (const [k, wait] of [
          [2, 800],
          [3, 1600],
          [4, 1600],
          [5, 1600],
        ]) {
          const st = await until(`failed start ${k}`, state, x => x.restarts === k);
          const left = Date.parse(st.nextRetryAt) - Date.now();
          const since = Date.parse(st.nextRetryAt) - Date.parse(previous.nextRetryAt);
          assert.ok(left <= wait && since >= wait, `restart ${k}: a wait of ${wait} ms, seen ${left} ms before the retry, ${since} ms after the one before`);
          assert.ok(st.status === 'failed' && st.stderr.at(-1) === 'fixture: giving up', JSON.stringify(st));
          previous = st;
        }

        // fixed: the next retry starts it, and its tools join the catalog without a refresh
        fs.rmSync(broken);
        const up = await until('started at last', state, st => st.status === 'connected', 20000);
        assert.deepEqual(up.tools, ['mcp__late__echo', 'mcp__late__picture']);
        const rows = ok(await call(s, 'POST', '/admin/netaclaw/tool/page', { toolset: 'mcp:late' }));
        assert.deepEqual(rows.list.map(r => r.name).sort(), ['mcp__late__echo', 'mcp__late__picture']);
        const agent = await addAgent(s, { name: 'late user', toolsets: ['base', 'mcp:late'] });
        model.push({ toolCalls: [{ id: 'e', name: 'mcp__late__echo', arguments: { text: 'late' } }] }, { content: 'ok' });
        const r = await chat(s, { agentId: agent.id, message: 'echo', sessionCwd: work });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual([r.body.data.toolCalls[0].ok, r.body.data.toolCalls[0].output], [true, 'echo: late'], JSON.stringify(r.body.data.toolCalls[0]));
      });
    });
  });
}

for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describeWithBackend(`MCP across instances · ${label}`, makeBackend, backend => {
    test('a refresh on one instance is applied by the other within seconds; an edit shows pending on both', async () => {
      const db = await backend.fresh();
      const shared = await startModel();
      const work = tmpDir();
      const env = { ...db.env, ...modelEnv(shared), NETACLAW_MCP_POLL_MS: '500' };
      const [a, b] = await Promise.all([startServer(env), startServer(env)]);
      try {
        const first = ok(await call(a, 'POST', '/admin/netaclaw/mcp/add', { name: 'one', transport: 'stdio', command: 'node', args: [FIXTURE] }));
        // added on A: pending on both
        const pendingOnB = ok(await call(b, 'GET', `/admin/netaclaw/mcp/info?id=${first.id}`)).state;
        assert.equal(pendingOnB.status, 'pending');
        ok(await call(a, 'POST', '/admin/netaclaw/mcp/refresh', {}));
        const onB = await until('B applies the refresh of A', stateOf(b, first.id), st => st.status === 'connected', 20000);
        assert.deepEqual(onB.tools, ['mcp__one__echo', 'mcp__one__picture']);
        assert.match(b.log(), /MCP servers refreshed on another instance/);
        assert.doesNotMatch(a.log(), /MCP servers refreshed on another instance/, 'A does not refresh twice for its own refresh');
        // B runs the server itself: the call is answered on B
        const agent = await addAgent(b, { name: 'shared user', toolsets: ['base', 'mcp:one'] });
        shared.push({ toolCalls: [{ id: 'e', name: 'mcp__one__echo', arguments: { text: 'on b' } }] }, { content: 'ok' });
        const r = await chat(b, { agentId: agent.id, message: 'echo', sessionCwd: work });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual([r.body.data.toolCalls[0].ok, r.body.data.toolCalls[0].output], [true, 'echo: on b'], JSON.stringify(r.body.data.toolCalls[0]));

        // an edit on A: what runs on B is no longer what is saved
        ok(await call(a, 'POST', '/admin/netaclaw/mcp/update', { id: first.id, args: [FIXTURE, '--crash-while', '/nonexistent'] }));
        assert.equal(ok(await call(b, 'GET', `/admin/netaclaw/mcp/info?id=${first.id}`)).state.status, 'pending');
        // a server added and one deleted on A, then refreshed there: B follows
        const second = ok(await call(a, 'POST', '/admin/netaclaw/mcp/add', { name: 'two', transport: 'stdio', command: 'node', args: [FIXTURE] }));
        ok(await call(a, 'POST', '/admin/netaclaw/mcp/delete', { id: first.id }));
        const refreshedAt = Date.now();
        ok(await call(a, 'POST', '/admin/netaclaw/mcp/refresh', {}));
        const two = await until('B applies the second refresh', stateOf(b, second.id), st => st.status === 'connected', 20000);
        assert.deepEqual(two.tools, ['mcp__two__echo', 'mcp__two__picture']);
        assert.ok(Date.now() - refreshedAt < 10000, 'within seconds');
        // the agent given mcp:one on B is offered its tools no more; one given mcp:two is
        shared.push({ content: 'hi' });
        ok(await chat(b, { agentId: agent.id, message: 'hi', sessionCwd: work }));
        assert.ok(!shared.offered().some(n => n.startsWith('mcp__one__')), `the deleted server's tools left B: ${JSON.stringify(shared.offered())}`);
        const twoUser = await addAgent(b, { name: 'two user', toolsets: ['base', 'mcp:two'] });
        shared.push({ content: 'hi' });
        ok(await chat(b, { agentId: twoUser.id, message: 'hi', sessionCwd: work }));
        assert.ok(shared.offered().includes('mcp__two__echo'), JSON.stringify(shared.offered()));
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await shared.close?.();
      }
    });
  });
}

test("a stdio server that cannot start is started again on the runtime's clock: after 1 s, then 2 s (moved, not waited)", async () => {
  const { rt, sandboxOf } = require('./support/runtime');
  const { McpServers, MCP_RESTART_FIRST_MS: FIRST } = rt('mcp/servers.js');
  const { ManualClock } = rt('../lib/clock.js');
  const clock = new ManualClock(0);
  const servers = new McpServers(sandboxOf('off'), clock);
  const downs = [];
  let woken = () => undefined;
  servers.supervise({
    down: (_server, info) => {
      downs.push({ at: clock.now(), retryAt: info.retryAt.getTime(), restarts: info.restarts });
      woken();
    },
    up: async () => undefined,
  });
  const downAgain = () => new Promise(resolve => (woken = resolve));
  try {
    const cfg = { name: 'gone', transport: 'stdio', command: '/bin/false', args: [], url: null, env: {}, workspaceRoots: [] };
    await assert.rejects(servers.open(cfg));
    assert.deepEqual(downs, [{ at: 0, retryAt: FIRST, restarts: 1 }]);
    clock.advance(FIRST - 1);
    assert.equal(servers.starting.size, 0, 'not started again before its time');
    const second = downAgain();
    clock.advance(1);
    assert.equal(servers.starting.size, 1, 'started again at its time');
    await second;
    // (the failed start is forgotten once its rejection has been handled)
    await new Promise(resolve => setImmediate(resolve));
    assert.deepEqual(downs[1], { at: FIRST, retryAt: FIRST + 2 * FIRST, restarts: 2 }, 'the delay doubles');
    clock.advance(2 * FIRST - 1);
    assert.equal(servers.starting.size, 0);
    const third = downAgain();
    clock.advance(1);
    await third;
    assert.deepEqual(downs[2], { at: 3 * FIRST, retryAt: 3 * FIRST + 4 * FIRST, restarts: 3 });
  } finally {
    await servers.closeAll();
  }
});

test("a server that has run for the stable period starts the doubling over when it dies (the runtime's clock, moved)", async () => {
  const { rt, sandboxOf } = require('./support/runtime');
  const { McpServers, MCP_RESTART_FIRST_MS: FIRST, MCP_RESTART_STABLE_MS: STABLE } = rt('mcp/servers.js');
  const { ManualClock } = rt('../lib/clock.js');
  const clock = new ManualClock(0);
  const servers = new McpServers(sandboxOf('off'), clock);
  const downs = [];
  let onDown = () => undefined;
  let onUp = () => undefined;
  servers.supervise({
    down: (_server, info) => {
      downs.push(info.restarts);
      onDown();
    },
    up: async () => onUp(),
  });
  const next = set => new Promise(resolve => set(resolve));
  const crash = async () => {
    const down = next(r => (onDown = r));
    await assert.rejects(servers.call('dies', 'echo', { text: '__exit__' }), /failed/);
    await down;
  };
  const restart = async ms => {
    const up = next(r => (onUp = r));
    clock.advance(ms);
    await up;
  };
  try {
    const tools = await servers.open({ name: 'dies', transport: 'stdio', command: process.execPath, args: [FIXTURE], url: null, env: {}, workspaceRoots: [] });
    assert.ok(
      tools.some(t => t.name === 'echo'),
      JSON.stringify(tools)
    );
    await crash();
    assert.deepEqual(downs, [1]);
    await restart(FIRST);
    // dying again at once: the doubling goes on
    await crash();
    assert.deepEqual(downs, [1, 2]);
    await restart(2 * FIRST);
    // after running for the stable period (on the clock), it starts over
    clock.advance(STABLE);
    await crash();
    assert.deepEqual(downs, [1, 2, 1]);
    await restart(FIRST);
    assert.equal((await servers.call('dies', 'echo', { text: 'back' })).output, 'echo: back');
  } finally {
    await servers.closeAll();
  }
});
