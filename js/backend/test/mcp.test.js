'use strict';
/**
 * MCP tool sources and custom command tools, through the real server, the admin API and the chat API with
 * the scripted model (test/support/model.js):
 * - an MCP server (js/backend/examples/mcp-demo-server.mjs, built on the official SDK) configured through
 *   /admin/netaclaw/mcp: bad input is a 400 naming the field; on refresh its tools are listed, converted by
 *   the package (`mcp__<server>__<tool>`, toolset `mcp:<server>`) and registered in netaclaw_tool;
 * - governed like builtins: a tool disabled on an agent is not offered; without writePermitted the writing
 *   MCP tool is refused; calls go through the session's worker to the main process, which forwards them
 *   (recorded `main-process-proxy`);
 * - the stdio server runs in the OS sandbox: as the sandbox user, in its own pid namespace, with no network;
 * - a server that dies in the middle of a call gives a failed call with its reason, and the turn goes on;
 *   the next call starts it again;
 * - an http server is reached only when a global net() rule allows its host and port (no rule, or an `ask`
 *   rule: not connected, the state names the host and the rule, no tool offered; a rule taken away: the
 *   next call is refused); a stdio server's sandbox reaches exactly the globally allowed hosts through its
 *   proxy (an `ask` host refused, kept in its state); allowed, it is listed and called with the streamable HTTP client; an
 *   unreachable one is reported while the others go on; a call its server never answers fails at NETACLAW_MCP_CALL_TIMEOUT_MS;
 * - `@modelcontextprotocol/server-filesystem` from npm runs in the sandbox on a read-only root; its path
 *   arguments are marked by default, so a path outside the session's roots is denied before the server sees it;
 * - a catalog file entry with `implementation: { type: 'command' }` runs its program in the shell sandbox
 *   with the arguments as JSON on stdin (the demo's vision_ocr on a vision channel, and a probe); one with
 *   `implementation: { type: 'mcp' }` forwards to a tool of an MCP server.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { withServer, call, BACKEND_ROOT } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { plainSecret, MCP_ENV } = require('./support/secrets');
const { modelForFile } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');
const { sandboxUser } = require('./support/runtime');

const model = modelForFile();
const SERVER = path.join(BACKEND_ROOT, 'examples', 'mcp-demo-server.mjs');
const DEMO = path.resolve(BACKEND_ROOT, '..', '..', 'scripts', 'demo');

/** A catalog file: the demo's vision_ocr (its program by absolute path) and a probe command tool. */
function catalogFile() {
  const [ocr] = JSON.parse(fs.readFileSync(path.join(DEMO, 'catalog.json'), 'utf8'));
  ocr.implementation.command = [path.join(DEMO, 'vision-ocr.js')];
  const probe = {
    name: 'sandbox_probe',
    toolset: 'probe',
    description: 'Says where it runs.',
    kind: 'custom',
    workerRoutingHint: 'main-process-proxy',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
    implementation: { type: 'command', command: [path.join(__dirname, 'fixtures', 'sandbox-probe.js')] },
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-mcp-catalog-'));
  const file = path.join(dir, 'catalog.json');
  fs.writeFileSync(file, JSON.stringify([ocr, probe]));
  return file;
}

const ok = r => {
  assert.equal(r.status, 200, r.text);
  return r.body.data;
};

function defineTests(backend) {
  test('MCP servers: admin API, tools registered and governed, calls forwarded from the sandboxed server, a dying server', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      // bad input: a 400 whose message names the field
      const bad = [
        [{ name: 'Bad Name', transport: 'stdio', command: 'node' }, /^name /],
        [{ name: 'fx', transport: 'ftp', command: 'node' }, /^transport /],
        [{ name: 'fx', transport: 'stdio' }, /^command /],
        [{ name: 'fx', transport: 'http' }, /^url /],
        [{ name: 'fx', transport: 'http', url: 'file:///x' }, /^url /],
        [{ name: 'fx', transport: 'stdio', command: 'node', args: 'x' }, /^args /],
        [{ name: 'fx', transport: 'stdio', command: 'node', env: { A: 1 } }, /^env\.A /],
        [{ name: 'fx', transport: 'stdio', command: 'node', workspaceRoots: ['rel'] }, /^workspaceRoots\[0\] /],
      ];
      for (const [body, message] of bad) {
        const r = await call(s, 'POST', '/admin/netaclaw/mcp/add', body);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_input');
        assert.match(r.body.error.message, message);
      }
      const added = ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'fx', transport: 'stdio', command: 'node', args: [SERVER] }));
      assert.equal(added.state.status, 'pending');
      const dup = await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'fx', transport: 'http', url: 'http://127.0.0.1:1/mcp' });
      assert.equal(dup.status, 400);
      assert.match(dup.body.error.message, /^name: /);
      assert.equal((await call(s, 'GET', '/admin/netaclaw/mcp/info?id=999')).status, 404);

      const refreshed = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
      const fx = refreshed.servers.find(x => x.name === 'fx');
      assert.equal(fx.state.status, 'connected', JSON.stringify(fx.state));
      assert.deepEqual(fx.state.tools, ['mcp__fx__echo', 'mcp__fx__note', 'mcp__fx__whoami']);
      assert.equal(refreshed.sync.inserts, 3);
      const page = ok(await call(s, 'POST', '/admin/netaclaw/mcp/page', {}));
      assert.equal(page.pagination.total, 1);
      const rows = ok(await call(s, 'POST', '/admin/netaclaw/tool/page', { toolset: 'mcp:fx' }));
      assert.deepEqual(rows.list.map(r => r.name).sort(), ['mcp__fx__echo', 'mcp__fx__note', 'mcp__fx__whoami']);

      const agent = await addAgent(s, { name: 'mcp user', toolsets: ['base', 'mcp:fx'] });
      // echo, then whoami, in one turn, through the session's worker to the main process
      model.push(
        {
          toolCalls: [
            { id: 'e1', name: 'mcp__fx__echo', arguments: { text: 'hello' } },
            { id: 'w1', name: 'mcp__fx__whoami', arguments: {} },
          ],
        },
        { content: 'done' }
      );
      const r1 = await chat(s, { agentId: agent.id, message: 'echo', sessionCwd: work });
      assert.equal(r1.status, 200, r1.text);
      assert.ok(model.offered(0).includes('mcp__fx__echo'), JSON.stringify(model.offered(0)));
      const [echo, who] = r1.body.data.toolCalls;
      assert.deepEqual([echo.name, echo.decision, echo.ok, echo.output], ['mcp__fx__echo', 'main-process-proxy', true, 'echo: hello'], JSON.stringify(echo));
      assert.equal(who.ok, true, JSON.stringify(who));
      const me = JSON.parse(who.output);
      assert.equal(me.uid, sandboxUser().uid, 'the server runs as the sandbox user');
      assert.notEqual(me.pidns, fs.readlinkSync(`/proc/${s.child.pid}/ns/pid`), 'in a pid namespace of its own');
      assert.deepEqual(me.interfaces, ['lo'], 'no network but its own loopback');
      // (the two calls ran side by side: stored in the order they ended)
      const recorded = await db.sql("SELECT name, decision, ok FROM netaclaw_tool_call WHERE name LIKE 'mcp__fx__%' ORDER BY id");
      assert.deepEqual(recorded.map(x => [x.name, x.decision, Boolean(x.ok)]).sort(), [
        ['mcp__fx__echo', 'main-process-proxy', true],
        ['mcp__fx__whoami', 'main-process-proxy', true],
      ]);
      const sessionId = r1.body.data.sessionId;

      // the writing tool, in a session without write permission: not offered (its route cannot run, for
      // the readonly policy), and a call of it anyway is refused before the server sees it
      model.push({ toolCalls: [{ id: 'n1', name: 'mcp__fx__note', arguments: { path: 'a.txt', content: 'x' } }] }, { content: 'refused' });
      const r2 = await chat(s, { agentId: agent.id, message: 'note', sessionId });
      assert.equal(r2.status, 200, r2.text);
      assert.ok(!model.offered(-2).includes('mcp__fx__note'), model.offered(-2).join(','));
      assert.ok(model.offered(-2).includes('mcp__fx__echo'));
      const note = r2.body.data.toolCalls[0];
      assert.deepEqual([note.decision, note.reason, note.ok], ['denied', 'tool_not_offered', false], JSON.stringify(note));
      const diag = (await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id, sessionCwd: work })).body.data;
      assert.equal(diag.routes.find(x => x.name === 'mcp__fx__note').blockedReason, 'write_blocked_by_readonly_policy');
      assert.ok(!diag.offered.includes('mcp__fx__note'));
      // with write permission the same call reaches the server
      model.push({ toolCalls: [{ id: 'n2', name: 'mcp__fx__note', arguments: { path: 'a.txt', content: 'x' } }] }, { content: 'noted' });
      const rw = await chat(s, { agentId: agent.id, message: 'note', sessionCwd: work, writePermitted: true });
      assert.equal(rw.status, 200, rw.text);
      assert.deepEqual([rw.body.data.toolCalls[0].ok, rw.body.data.toolCalls[0].output], [true, 'note for a.txt: 1 characters'], rw.text);

      // the server dies in the middle of a call: a failed call with the reason, the turn goes on
      model.push({ toolCalls: [{ id: 'x1', name: 'mcp__fx__echo', arguments: { text: '__exit__' } }] }, { content: 'it died' });
      const r3 = await chat(s, { agentId: agent.id, message: 'die', sessionId });
      assert.equal(r3.status, 200, r3.text);
      const died = r3.body.data.toolCalls[0];
      assert.equal(died.ok, false);
      assert.match(died.error, /MCP server fx failed: .*ended with code 3: fixture: exiting as asked/, died.error);
      assert.equal(r3.body.data.reply, 'it died');
      // the next call starts it again
      model.push({ toolCalls: [{ id: 'e2', name: 'mcp__fx__echo', arguments: { text: 'again' } }] }, { content: 'back' });
      const r4 = await chat(s, { agentId: agent.id, message: 'again', sessionId });
      assert.equal(r4.body.data.toolCalls[0].output, 'echo: again', JSON.stringify(r4.body.data.toolCalls[0]));

      // disabled on an agent: not offered
      const narrow = await addAgent(s, { name: 'no echo', toolsets: ['base', 'mcp:fx'], tools: { disabled: ['mcp__fx__echo'] } });
      model.push({ content: 'hi' });
      ok(await chat(s, { agentId: narrow.id, message: 'hi', sessionCwd: work }));
      assert.ok(!model.offered().includes('mcp__fx__echo') && model.offered().includes('mcp__fx__whoami'), JSON.stringify(model.offered()));

      // disabled server: its tools leave the catalog (rows kept, as orphans) on refresh
      ok(await call(s, 'POST', '/admin/netaclaw/mcp/update', { id: added.id, enabled: false }));
      const off = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
      assert.equal(off.servers[0].state.status, 'disabled');
      assert.deepEqual(off.sync.orphans.filter(n => n.startsWith('mcp__fx__')).sort(), ['mcp__fx__echo', 'mcp__fx__note', 'mcp__fx__whoami']);
      model.push({ content: 'none' });
      ok(await chat(s, { agentId: agent.id, message: 'hi', sessionCwd: work }));
      assert.ok(!model.offered().some(n => n.startsWith('mcp__')), JSON.stringify(model.offered()));
      ok(await call(s, 'POST', '/admin/netaclaw/mcp/delete', { id: added.id }));
      assert.equal((await call(s, 'GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).status, 404);
    });
  });

  test('MCP server env: answered only masked; an update keeps a variable sent as null, replaces the others, refuses null for an unknown one; a changed server is pending until refreshed', async () => {
    const db = await backend.fresh();
    await withServer(db.env, async s => {
      const secret = 'sk-mcp-secret-0123456789';
      const added = ok(
        await call(s, 'POST', '/admin/netaclaw/mcp/add', {
          name: 'envs',
          transport: 'stdio',
          command: 'node',
          args: [SERVER],
          env: { API_KEY: secret, MODE: 'a' },
        })
      );
      assert.deepEqual(added.env, { API_KEY: 'sk-…6789', MODE: '…' });
      assert.ok(!JSON.stringify(added).includes(secret));
      // null on add: there is nothing to keep
      const addNull = await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'envs2', transport: 'stdio', command: 'node', env: { API_KEY: null } });
      assert.equal(addNull.status, 400, addNull.text);
      assert.match(addNull.body.error.message, /^env\.API_KEY must be a string/);
      // keep API_KEY, change MODE, add EXTRA, drop nothing else
      ok(await call(s, 'POST', '/admin/netaclaw/mcp/update', { id: added.id, env: { API_KEY: null, MODE: 'b', EXTRA: 'x' } }));
      const [stored] = await db.sql('SELECT env FROM netaclaw_mcp_server WHERE id = ' + Number(added.id));
      const env = typeof stored.env === 'string' ? JSON.parse(stored.env) : stored.env;
      // the names readable, the values encrypted (src/config/secrets.ts)
      assert.deepEqual(Object.keys(env), ['API_KEY', 'MODE', 'EXTRA']);
      assert.ok(
        Object.values(env).every(v => /^enc:v1:/.test(v)),
        JSON.stringify(env)
      );
      assert.deepEqual(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, plainSecret(v, MCP_ENV)])), { API_KEY: secret, MODE: 'b', EXTRA: 'x' });
      // refreshed, it runs; changed, it is pending until the next refresh
      const running = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
      assert.equal(running.servers[0].state.status, 'connected', JSON.stringify(running.servers[0].state));
      // a variable left out is removed
      const changed = ok(await call(s, 'POST', '/admin/netaclaw/mcp/update', { id: added.id, env: { API_KEY: null } }));
      assert.equal(changed.state.status, 'pending');
      assert.equal(ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers[0].state.status, 'connected');
      assert.deepEqual(ok(await call(s, 'GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).env, { API_KEY: 'sk-…6789' });
      // null for a name with no stored value: a 400 naming it, nothing written
      const unknown = await call(s, 'POST', '/admin/netaclaw/mcp/update', { id: added.id, env: { API_KEY: null, OTHER: null } });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error.code, 'invalid_input');
      assert.match(unknown.body.error.message, /^env\.OTHER: no stored value to keep/);
      assert.deepEqual(ok(await call(s, 'GET', `/admin/netaclaw/mcp/info?id=${added.id}`)).env, { API_KEY: 'sk-…6789' });
    });
  });

  test('custom command tools: the demo vision_ocr on a vision channel, and a probe, run in the shell sandbox with their arguments on stdin', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    // a 2×3 PNG header is all the demo engine reads
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
    png.writeUInt32BE(2, 16);
    png.writeUInt32BE(3, 20);
    fs.writeFileSync(path.join(work, 'shot.png'), png);
    fs.chownSync(path.join(work, 'shot.png'), sandboxUser().uid, sandboxUser().gid);
    const env = { ...db.env, ...modelEnv(model, { NETACLAW_MODEL_CAPABILITY: 'vision' }), NETACLAW_CATALOG_FILE: catalogFile() };
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'ocr', toolsets: ['base', 'vision', 'probe'] });
      model.push(
        {
          toolCalls: [
            { id: 'o1', name: 'vision_ocr', arguments: { path: 'shot.png' } },
            { id: 'p1', name: 'sandbox_probe', arguments: { word: 'hi' } },
          ],
        },
        { content: 'read' }
      );
      const r = await chat(s, { agentId: agent.id, message: 'read the screenshot', sessionCwd: work });
      assert.equal(r.status, 200, r.text);
      assert.ok(model.offered(0).includes('vision_ocr'));
      const [ocr, probe] = r.body.data.toolCalls;
      assert.equal(ocr.ok, true, JSON.stringify(ocr));
      assert.equal(ocr.decision, 'main-process-proxy');
      assert.match(ocr.output, /^OCR shot\.png \(PNG 2x3, 33 bytes, sha256 [0-9a-f]{12}\): no text recognised by the demo engine\n/);
      assert.equal(probe.ok, true, JSON.stringify(probe));
      const seen = JSON.parse(probe.output.split('\n')[0]);
      assert.deepEqual(seen.input, { word: 'hi' });
      assert.equal(seen.uid, sandboxUser().uid, 'as the sandbox user');
      assert.notEqual(seen.pidns, fs.readlinkSync(`/proc/${s.child.pid}/ns/pid`), 'below bwrap, in its own pid namespace');
      assert.deepEqual(seen.interfaces, ['lo']);
      assert.equal(seen.cwd, work);
    });
  });

  test('an http MCP server: reached only when a global net() rule allows it; listed and called with the streamable HTTP client; an unreachable one is reported, the others go on', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    const child = spawn(process.execPath, [SERVER, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', d => {
          out += d;
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on('exit', code => reject(new Error(`the http MCP server exited (${code})`)));
      });
      // a catalog file entry whose implementation is a tool of that server
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-mcp-entry-'));
      const catalog = path.join(dir, 'catalog.json');
      const entry = {
        name: 'web_echo',
        toolset: 'probe',
        kind: 'custom',
        workerRoutingHint: 'main-process-proxy',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
        implementation: { type: 'mcp', server: 'web', tool: 'echo' },
      };
      fs.writeFileSync(catalog, JSON.stringify([entry]));
      const env = { ...db.env, ...modelEnv(model), NETACLAW_CATALOG_FILE: catalog, NETACLAW_MCP_CALL_TIMEOUT_MS: '1500' };
      await withServer(env, async s => {
        const port = new URL(url).port;
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'web', transport: 'http', url }));
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'gone', transport: 'http', url: 'http://127.0.0.1:9/mcp' }));
        // the same server by a name no rule allows, and by an address a global rule only asks about
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'unruled', transport: 'http', url: url.replace('127.0.0.1', 'localhost') }));
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'asked', transport: 'http', url: 'http://127.0.0.1:7/mcp' }));
        // an HTTP server is reached only when a global net() rule allows its host and port
        const blocked = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {})).servers;
        assert.deepEqual(
          blocked.map(x => x.state.status),
          ['failed', 'failed', 'failed', 'failed']
        );
        assert.match(
          blocked[0].state.error,
          new RegExp(
            `^MCP server web is not connected and its tools are not offered: the backend does not reach this MCP server: 127\\.0\\.0\\.1:${port} is refused: no net\\(\\) rule allows it`
          )
        );
        assert.deepEqual([blocked[0].state.refused.host, blocked[0].state.refused.port, blocked[0].state.refused.rule], ['127.0.0.1', Number(port), null]);
        assert.deepEqual(blocked[0].state.tools, []);
        const catalog = async () => ok(await call(s, 'GET', '/admin/netaclaw/tool/catalog')).map(t => t.name);
        assert.deepEqual(
          (await catalog()).filter(n => n.startsWith('mcp__')),
          [],
          'a refused server offers no tool'
        );
        let rules = ok(await call(s, 'GET', '/admin/netaclaw/rules/info'));
        const allowWeb = { allow: [`net(127.0.0.1:${port})`, 'net(127.0.0.1:9)'], ask: ['net(127.0.0.1:7)'] };
        rules = ok(await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: allowWeb, version: rules.version }));
        // a stdio server whose one tool runs curl: its sandbox reaches the globally allowed hosts through its proxy
        const NET_SERVER = path.join(__dirname, 'fixtures', 'mcp-net-server.mjs');
        ok(await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'netfx', transport: 'stdio', command: 'node', args: [NET_SERVER] }));
        const r = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
        const [web, gone, unruled, asked] = r.servers;
        assert.deepEqual(
          [web.state.status, web.state.tools, web.state.refused],
          ['connected', ['mcp__web__echo', 'mcp__web__note', 'mcp__web__whoami'], null],
          JSON.stringify(web.state)
        );
        // allowed and not there: failed as before, nothing refused
        assert.equal(gone.state.status, 'failed');
        assert.match(gone.state.error, /^cannot list the tools of MCP server gone: /);
        assert.equal(gone.state.refused, null);
        assert.equal(unruled.state.status, 'failed');
        assert.match(unruled.state.error, new RegExp(`localhost:${port} is refused: no net\\(\\) rule allows it`));
        assert.deepEqual([unruled.state.refused.host, unruled.state.refused.rule], ['localhost', null]);
        // ask: no one can approve a connection the backend makes, so it is refused with the rule named
        assert.equal(asked.state.status, 'failed');
        assert.match(
          asked.state.error,
          /127\.0\.0\.1:7 is refused: net\(127\.0\.0\.1:7\) \(global rules\) asks for an approval.*a global allow rule is needed/
        );
        assert.deepEqual([asked.state.refused.rule, asked.state.refused.level], ['net(127.0.0.1:7)', 'global']);
        assert.deepEqual((await catalog()).filter(n => n.startsWith('mcp__') && !n.startsWith('mcp__netfx__')).sort(), web.state.tools);
        const netfx = r.servers.find(x => x.name === 'netfx');
        assert.deepEqual([netfx.state.status, netfx.state.tools], ['connected', ['mcp__netfx__fetch']], JSON.stringify(netfx.state));
        const fetcher = await addAgent(s, { name: 'fetcher', toolsets: ['base', 'mcp:netfx'] });
        model.push(
          {
            toolCalls: [
              { id: 'f1', name: 'mcp__netfx__fetch', arguments: { url: `http://127.0.0.1:${port}/mcp` } },
              { id: 'f2', name: 'mcp__netfx__fetch', arguments: { url: 'http://127.0.0.1:7/' } },
            ],
          },
          { content: 'fetched' }
        );
        const f = await chat(s, { agentId: fetcher.id, message: 'fetch', sessionCwd: work, writePermitted: true });
        assert.equal(f.status, 200, f.text);
        const [reached, askedHost] = f.body.data.toolCalls;
        assert.equal(reached.ok, true, JSON.stringify(reached));
        assert.doesNotMatch(reached.output, /netaclaw proxy|Could not resolve|Couldn't connect/, reached.output);
        assert.match(reached.output, /jsonrpc|Method Not Allowed|Not Acceptable/i, reached.output);
        assert.match(
          askedHost.output,
          /netaclaw proxy: 127\.0\.0\.1:7 is waiting for an approval: net\(127\.0\.0\.1:7\) \(global rules\); no one can approve it here, so it is refused/
        );
        const netfxAfter = ok(await call(s, 'POST', '/admin/netaclaw/mcp/page', {})).list.find(x => x.name === 'netfx');
        assert.deepEqual([netfxAfter.state.refused.host, netfxAfter.state.refused.port, netfxAfter.state.refused.rule], ['127.0.0.1', 7, 'net(127.0.0.1:7)']);
        const agent = await addAgent(s, { name: 'web user', toolsets: ['base', 'mcp:web'] });
        model.push({ toolCalls: [{ id: 'e1', name: 'mcp__web__echo', arguments: { text: 'over http' } }] }, { content: 'ok' });
        const c = await chat(s, { agentId: agent.id, message: 'echo', sessionCwd: work });
        assert.equal(c.status, 200, c.text);
        const e = c.body.data.toolCalls[0];
        assert.deepEqual([e.decision, e.ok, e.output], ['main-process-proxy', true, 'echo: over http'], JSON.stringify(e));
        // the catalog entry forwards to the server's tool; a server that does not answer: the call fails at the time limit, the turn goes on
        const both = await addAgent(s, { name: 'entry user', toolsets: ['base', 'mcp:web', 'probe'] });
        model.push(
          {
            toolCalls: [
              { id: 'v1', name: 'web_echo', arguments: { text: 'via entry' } },
              { id: 'h1', name: 'mcp__web__echo', arguments: { text: '__hang__' } },
            ],
          },
          { content: 'went on' }
        );
        const t0 = Date.now();
        const c2 = await chat(s, { agentId: both.id, message: 'echo', sessionCwd: work });
        assert.equal(c2.status, 200, c2.text);
        const [v, h] = c2.body.data.toolCalls;
        assert.deepEqual([v.ok, v.output], [true, 'echo: via entry'], JSON.stringify(v));
        assert.equal(h.ok, false);
        assert.match(h.error, /the call of echo on MCP server web failed: .*timed out/i, h.error);
        assert.ok(Date.now() - t0 < 30000);
        assert.equal(c2.body.data.reply, 'went on');
        // the rule taken away: the next call is refused before the server is reached, and kept in its state
        ok(await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: { deny: [`net(127.0.0.1:${port})`] }, version: rules.version }));
        model.push({ toolCalls: [{ id: 'e2', name: 'mcp__web__echo', arguments: { text: 'after the rule' } }] }, { content: 'refused' });
        const c3 = await chat(s, { agentId: agent.id, message: 'echo', sessionCwd: work });
        assert.equal(c3.status, 200, c3.text);
        const e3 = c3.body.data.toolCalls[0];
        assert.equal(e3.ok, false, JSON.stringify(e3));
        assert.match(
          e3.error,
          new RegExp(`the call of echo on MCP server web is refused: .*127\\.0\\.0\\.1:${port} is refused: net\\(127\\.0\\.0\\.1:${port}\\) \\(global rules\\)`)
        );
        const after = ok(await call(s, 'POST', '/admin/netaclaw/mcp/page', {})).list.find(x => x.name === 'web');
        assert.deepEqual([after.state.refused.rule, after.state.refused.level], [`net(127.0.0.1:${port})`, 'global']);
      });
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('@modelcontextprotocol/server-filesystem from npm: started in the sandbox on a read-only root, its tools governed and called, its path arguments checked against the session roots', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    const shared = tmpDir('netaclaw-mcp-fs-');
    fs.writeFileSync(path.join(shared, 'readme.txt'), 'shared notes\n');
    fs.chownSync(path.join(shared, 'readme.txt'), sandboxUser().uid, sandboxUser().gid);
    const entry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      ok(
        await call(s, 'POST', '/admin/netaclaw/mcp/add', { name: 'fs', transport: 'stdio', command: 'node', args: [entry, shared], workspaceRoots: [shared] })
      );
      const r = ok(await call(s, 'POST', '/admin/netaclaw/mcp/refresh', {}));
      const state = r.servers[0].state;
      assert.equal(state.status, 'connected', JSON.stringify(state));
      assert.ok(state.tools.includes('mcp__fs__read_text_file') && state.tools.includes('mcp__fs__write_file'), JSON.stringify(state.tools));
      const read = ok(await call(s, 'GET', '/admin/netaclaw/tool/info?name=mcp__fs__read_text_file'));
      assert.equal(read.toolset, 'mcp:fs');
      const agent = await addAgent(s, { name: 'fs user', toolsets: ['base', 'mcp:fs'] });
      model.push(
        {
          toolCalls: [
            { id: 'r1', name: 'mcp__fs__read_text_file', arguments: { path: path.join(shared, 'readme.txt') } },
            { id: 'w1', name: 'mcp__fs__write_file', arguments: { path: path.join(shared, 'new.txt'), content: 'x' } },
          ],
        },
        { content: 'read' }
      );
      // the session's root is the shared folder: the paths are inside it
      const c = await chat(s, { agentId: agent.id, message: 'read the notes', sessionCwd: shared, writePermitted: true });
      assert.equal(c.status, 200, c.text);
      const [r1, w1] = c.body.data.toolCalls;
      assert.deepEqual([r1.decision, r1.ok, r1.output], ['main-process-proxy', true, 'shared notes\n'], JSON.stringify(r1));
      // its root is bound read-only: the server's own write fails, nothing is written
      assert.equal(w1.decision, 'main-process-proxy', JSON.stringify(w1));
      assert.equal(w1.ok, false, JSON.stringify(w1));
      assert.match(w1.error, /read-only file system|EROFS/i, w1.error);
      assert.ok(!fs.existsSync(path.join(shared, 'new.txt')));

      // a session whose root is elsewhere: the same paths (the server's own root) are outside it, denied by the
      // gate as a builtin's would be — one path of a list is enough; a move names two written paths
      model.push(
        {
          toolCalls: [
            { id: 'o1', name: 'mcp__fs__read_text_file', arguments: { path: path.join(shared, 'readme.txt') } },
            { id: 'o2', name: 'mcp__fs__read_multiple_files', arguments: { paths: [path.join(work, 'a.txt'), path.join(shared, 'readme.txt')] } },
            { id: 'o3', name: 'mcp__fs__move_file', arguments: { source: path.join(work, 'a.txt'), destination: path.join(shared, 'b.txt') } },
            { id: 'i1', name: 'mcp__fs__list_directory', arguments: { path: work } },
          ],
        },
        { content: 'outside' }
      );
      const o = await chat(s, { agentId: agent.id, message: 'read elsewhere', sessionCwd: work, writePermitted: true });
      assert.equal(o.status, 200, o.text);
      const [o1, o2, o3, i1] = o.body.data.toolCalls;
      for (const d of [o1, o2, o3]) assert.deepEqual([d.decision, d.reason, d.ok], ['denied', 'path_outside_workspace', false], JSON.stringify(d));
      // inside the session's root the gate lets it through; the server, whose own root is the shared folder, refuses it
      assert.equal(i1.decision, 'main-process-proxy', JSON.stringify(i1));
      // in a read-only session a written path is denied, though inside the root
      model.push({ toolCalls: [{ id: 'w2', name: 'mcp__fs__create_directory', arguments: { path: path.join(shared, 'sub') } }] }, { content: 'ro' });
      const ro = await chat(s, { agentId: agent.id, message: 'mkdir', sessionCwd: shared });
      assert.equal(ro.status, 200, ro.text);
      assert.equal(ro.body.data.toolCalls[0].decision, 'denied', JSON.stringify(ro.body.data.toolCalls[0]));
    });
  });

  test('a catalog file entry with a bad implementation stops the start with a message naming the entry', async () => {
    const db = await backend.fresh();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-mcp-bad-'));
    const file = path.join(dir, 'catalog.json');
    fs.writeFileSync(
      file,
      JSON.stringify([
        { name: 'bad_tool', toolset: 'probe', kind: 'custom', workerRoutingHint: 'main-process-proxy', implementation: { type: 'command', command: [] } },
      ])
    );
    const { startServer } = require('./support/server');
    const s = await startServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, { expectExit: true });
    assert.match(s.log(), /entry \[0\] \("bad_tool"\): implementation\.command must be a non-empty list/);
  });
}

runOnEveryBackend(defineTests);
