'use strict';
/**
 * Request DTOs (@midwayjs/validate, src/dto/) and the `{ data }` envelope (src/filter/envelope.ts): a body
 * a DTO refuses is a 400 `invalid_input` whose message names the field — on REST and on the chat
 * WebSocket alike — and nothing is written; values are not converted (a string is not a boolean);
 * lengths count characters; unknown members are ignored; every answer of a route is `{ data }`, every
 * error `{ error }`. Shape checks do not depend on the storage: SQLite only.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { startServer, call } = require('./support/server');
const { sqliteBackend } = require('./support/db');
const { chat, wsChat } = require('./support/chat');

describe('request DTOs and the answer envelope', () => {
  let backend;
  let s;
  before(async () => {
    backend = sqliteBackend();
    s = await startServer((await backend.fresh()).env);
  });
  after(async () => {
    await s?.stop();
    await backend?.stop();
  });

  const CHANNEL = { name: 'n', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' };

  test('a refused body: 400 invalid_input naming the field, nothing written', async () => {
    const added = await call(s, 'POST', '/admin/netaclaw/channel/add', CHANNEL);
    assert.equal(added.status, 200, added.text);
    const id = added.body.data.id;
    const cases = [
      ['/admin/netaclaw/channel/add', [CHANNEL], /^request body must be a JSON object$/],
      ['/admin/netaclaw/channel/add', { baseUrl: 'http://x/v1', model: 'm' }, /^name is required$/],
      ['/admin/netaclaw/channel/add', { ...CHANNEL, name: '  ' }, /^name must be a non-empty string$/],
      ['/admin/netaclaw/channel/add', { ...CHANNEL, name: 7 }, /^name must be a non-empty string$/],
      ['/admin/netaclaw/channel/add', { ...CHANNEL, name: 'x'.repeat(101) }, /^name must be at most 100 characters$/],
      // no conversion: the string "true" is not a boolean
      ['/admin/netaclaw/channel/add', { ...CHANNEL, name: 'n2', isDefault: 'true' }, /^isDefault must be a boolean$/],
      ['/admin/netaclaw/channel/add', { ...CHANNEL, name: 'n2', apiKey: 5 }, /^apiKey must be a string$/],
      ['/admin/netaclaw/channel/update', { model: 'x' }, /^id is required$/],
      ['/admin/netaclaw/channel/update', { id: 0, model: 'x' }, /^id must be a positive integer$/],
      ['/admin/netaclaw/channel/update', { id: 1.5, model: 'x' }, /^id must be a positive integer$/],
      ['/admin/netaclaw/channel/update', { id, model: '' }, /^model must be a non-empty string$/],
      ['/admin/netaclaw/channel/delete', {}, /^id is required$/],
      ['/admin/netaclaw/channel/page', { size: 0 }, /^size must be an integer between 1 and 1000$/],
      ['/admin/netaclaw/channel/page', { page: '2' }, /^page must be an integer between 1 and 1000000$/],
      ['/admin/netaclaw/agent/page', { name: 3 }, /^name must be a string$/],
      ['/admin/netaclaw/agent/page', { size: 1001 }, /^size must be an integer between 1 and 1000$/],
      ['/admin/netaclaw/tool/page', { status: 2 }, /^status must be an integer between 0 and 1$/],
      ['/admin/netaclaw/tool/page', { toolset: ['base'] }, /^toolset must be a string$/],
      ['/admin/netaclaw/tool/page', ['base'], /^request body must be a JSON object$/],
      ['/admin/netaclaw/agent/add', { toolsets: ['base'] }, /^name is required$/],
      ['/admin/netaclaw/agent/add', { name: 'a'.repeat(101) }, /^name must be at most 100 characters$/],
      ['/admin/netaclaw/agent/add', { name: 'a', skills: [1] }, /^skills\[0\] must be a string$/],
      ['/admin/netaclaw/agent/add', { name: 'a', tools: 'grep' }, /^tools must be a JSON object$/],
      ['/admin/netaclaw/agent/add', { name: 'a', tools: { disabled: 'grep' } }, /^tools\.disabled must be an array of strings$/],
      ['/admin/netaclaw/agent/add', { name: 'a', tools: { enabled: [] } }, /^tools\.enabled is not supported \(only tools\.disabled\)$/],
      ['/admin/netaclaw/agent/add', { name: 'a', memoryEnabled: 'yes' }, /^memoryEnabled must be a boolean$/],
      ['/admin/netaclaw/agent/add', { name: 'a', modelChannelId: 0 }, /^modelChannelId must be a positive integer$/],
      // a vocabulary is the package's: the DTO lets the value through, the service refuses it
      ['/admin/netaclaw/agent/add', { name: 'a', crewRole: 'captain' }, /^crewRole must be one of .*master/],
      ['/admin/netaclaw/agent/update', { name: 'b' }, /^id is required$/],
      ['/admin/netaclaw/agent/update', { id: 1, systemPrompt: 5 }, /^systemPrompt must be a string$/],
      ['/admin/netaclaw/agent/previewPrompt', { agent: 'x' }, /^agent must be a JSON object$/],
      ['/admin/netaclaw/agent/previewPrompt', { agent: { name: 'd', toolsets: 'base' } }, /^toolsets must be an array of strings$/],
      ['/admin/netaclaw/mcp/add', ['x'], /^request body must be a JSON object$/],
      ['/admin/netaclaw/mcp/add', { transport: 'stdio', command: 'node' }, /^name is required$/],
      ['/admin/netaclaw/mcp/add', { name: 'm' }, /^transport is required$/],
      ['/admin/netaclaw/mcp/add', { name: 7, transport: 'stdio', command: 'node' }, /^name must be a non-empty string$/],
      ['/admin/netaclaw/mcp/add', { name: 'm', transport: 'stdio', command: 5 }, /^command must be a string$/],
      ['/admin/netaclaw/mcp/add', { name: 'm', transport: 'stdio', command: 'node', enabled: 'yes' }, /^enabled must be a boolean$/],
      ['/admin/netaclaw/mcp/add', { name: 'm', transport: 'stdio', command: 'node', args: [1] }, /^args must be a list of strings$/],
      ['/admin/netaclaw/mcp/update', { enabled: false }, /^id is required$/],
      ['/admin/netaclaw/mcp/delete', {}, /^id is required$/],
      ['/admin/netaclaw/agent/delete', {}, /^id is required$/],
      ['/admin/netaclaw/agent/delete', { id: 0 }, /^id must be a positive integer$/],
      ['/admin/netaclaw/session/delete', {}, /^id is required$/],
      ['/admin/netaclaw/session/delete', { id: 'one' }, /^id must be a positive integer$/],
      ['/admin/netaclaw/mcp/page', { size: 0 }, /^size must be an integer between 1 and 1000$/],
    ];
    const before = (await call(s, 'POST', '/admin/netaclaw/channel/page', {})).body;
    for (const [p, body, message] of cases) {
      const r = await call(s, 'POST', p, body);
      assert.equal(r.status, 400, `${p} ${JSON.stringify(body).slice(0, 80)} → ${r.text}`);
      assert.deepEqual(Object.keys(r.body), ['error']);
      assert.equal(r.body.error.code, 'invalid_input');
      assert.match(r.body.error.message, message);
    }
    assert.deepEqual((await call(s, 'POST', '/admin/netaclaw/channel/page', {})).body, before, 'nothing written');
    assert.equal((await call(s, 'POST', '/admin/netaclaw/mcp/page', {})).body.data.pagination.total, 0, 'no MCP server written');
  });

  test('previewPrompt and diagnostic: the session fields by their DTOs, named by their path', async () => {
    for (const [p, body, message] of [
      ['/admin/netaclaw/agent/previewPrompt', { agent: { name: 'd' }, workspaceRoots: ['/a', 3] }, /^workspaceRoots\[1\] must be a string$/],
      ['/admin/netaclaw/agent/previewPrompt', { agent: { name: 'd' }, shellPermitted: 'yes' }, /^shellPermitted must be a boolean$/],
      ['/admin/netaclaw/agent/previewPrompt', { agent: { name: 'd' }, sessionCwd: '/' + 'd'.repeat(1000) }, /^sessionCwd must be at most 1000 characters$/],
      ['/admin/netaclaw/agent/previewPrompt', { agent: { name: 'd' }, subagentTools: 'grep' }, /^subagentTools must be an array of strings$/],
      ['/admin/netaclaw/agent/previewPrompt', { id: 'one' }, /^id must be a positive integer$/],
      ['/admin/netaclaw/agent/previewPrompt', {}, /^id or agent is required$/],
      ['/admin/netaclaw/tool/diagnostic', { writePermitted: null }, /^writePermitted must be a boolean$/],
      ['/admin/netaclaw/tool/diagnostic', { sessionCwd: 5 }, /^sessionCwd must be a string$/],
      ['/admin/netaclaw/tool/diagnostic', { subagentTools: ['grep', null] }, /^subagentTools\[1\] must be a string$/],
      ['/admin/netaclaw/tool/diagnostic', { agentId: 0 }, /^agentId must be a positive integer$/],
      ['/admin/netaclaw/tool/diagnostic', ['x'], /^request body must be a JSON object$/],
    ]) {
      const r = await call(s, 'POST', p, body);
      assert.equal(r.status, 400, `${p} ${JSON.stringify(body).slice(0, 80)} → ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_input');
      assert.match(r.body.error.message, message);
    }
    const ok = await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', { workspaceRoots: [], shellPermitted: false });
    assert.equal(ok.status, 200, ok.text);
  });

  test('the admin run: the spec and its calls by the DTO, named by their path, no batch started', async () => {
    const agent = (await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'runner', toolsets: ['base'] })).body.data;
    const agentId = agent.id;
    const batches = async () => (await call(s, 'GET', '/admin/netaclaw/subagent/page')).body.data.total;
    const before = await batches();
    for (const [body, message] of [
      [{ calls: [] }, /^agentId is required$/],
      [{ agentId }, /^calls is required$/],
      [{ agentId, calls: { name: 'grep' } }, /^calls must be an array$/],
      [{ agentId, calls: [7] }, /^calls\[0\] must be a JSON object$/],
      [{ agentId, calls: [{ arguments: {} }] }, /^calls\[0\]\.name must be a non-empty string$/],
      [{ agentId, calls: [{ name: 'x'.repeat(201) }] }, /^calls\[0\]\.name must be at most 200 characters$/],
      [{ agentId, calls: [{ name: 'grep' }, { name: 'grep', extra: 1 }] }, /^calls\[1\]\.extra is not a call field \(name, arguments\)$/],
      [{ agentId, calls: Array.from({ length: 201 }, () => ({ name: 'grep' })) }, /^calls must hold at most 200 items$/],
      [{ agentId, calls: [], sessionCwd: '/' + 'd'.repeat(4096) }, /^sessionCwd must be at most 4096 characters$/],
      [{ agentId, calls: [], timeoutMs: '5' }, /^timeoutMs must be an integer between 1 and 600000$/],
      [{ agentId, calls: [], workspaceRoots: [1] }, /^workspaceRoots\[0\] must be a string$/],
      [{ agentId, calls: [], sessionId: 's' }, /^sessionId cannot be set on an admin run$/],
      [{ agentId, calls: [], parent: null }, /^parent cannot be set on an admin run$/],
    ]) {
      const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_input');
      assert.match(r.body.error.message, message);
    }
    assert.equal(await batches(), before, 'no batch started');
  });

  test('the GET queries: ids, pages and filters by their DTOs, named by their field', async () => {
    for (const [p, message] of [
      ['/admin/netaclaw/session/info', /^id is required$/],
      ['/admin/netaclaw/session/info?id=abc', /^id must be a positive integer$/],
      ['/admin/netaclaw/session/page?size=0', /^size must be an integer between 1 and 1000$/],
      ['/admin/netaclaw/session/page?page=x', /^page must be an integer between 1 and 1000000$/],
      ['/admin/netaclaw/session/page?page=1&page=2', /^page must be an integer between 1 and 1000000$/],
      ['/admin/netaclaw/session/page?agentId=-1', /^agentId must be a positive integer$/],
      ['/admin/netaclaw/subagent/page?size=1001', /^size must be an integer between 1 and 1000$/],
      ['/admin/netaclaw/subagent/page?sessionId=' + 'x'.repeat(65), /^sessionId must be a string or number of 1 to 64 characters$/],
      ['/admin/netaclaw/subagent/page?sessionId=a&sessionId=b', /^sessionId must be a string or number of 1 to 64 characters$/],
      ['/admin/netaclaw/subagent/info?id=0', /^id must be a positive integer$/],
      ['/admin/netaclaw/subagent/events', /^id is required$/],
      ['/admin/netaclaw/agent/info?id=1.5', /^id must be a positive integer$/],
      ['/admin/netaclaw/channel/info', /^id is required$/],
      ['/admin/netaclaw/mcp/info', /^id is required$/],
      ['/admin/netaclaw/tool/info?name=', /^name must be a non-empty string$/],
      ['/admin/netaclaw/tool/info?name=' + 'x'.repeat(201), /^name must be at most 200 characters$/],
      ['/admin/netaclaw/tool/info', /^id or name is required$/],
    ]) {
      const r = await call(s, 'GET', p);
      assert.equal(r.status, 400, `${p.slice(0, 80)} → ${r.text}`);
      assert.deepEqual(Object.keys(r.body), ['error']);
      assert.equal(r.body.error.code, 'invalid_input');
      assert.match(r.body.error.message, message);
    }
    // an empty filter filters nothing; an empty page is the first
    const all = await call(s, 'GET', '/admin/netaclaw/session/page?page=&size=&agentId=');
    assert.equal(all.status, 200, all.text);
    const batches = await call(s, 'GET', '/admin/netaclaw/subagent/page?page=1&size=2&agentId=&sessionId=');
    assert.equal(batches.status, 200, batches.text);
    const read = await call(s, 'GET', '/admin/netaclaw/tool/info?name=read_file');
    assert.equal(read.status, 200, read.text);
    assert.equal((await call(s, 'GET', `/admin/netaclaw/tool/info?id=${read.body.data.id}`)).body.data.name, 'read_file');
  });

  test('what a DTO accepts: an id as a string of digits, unknown members ignored, lengths in characters', async () => {
    const base = (await call(s, 'POST', '/admin/netaclaw/channel/add', { ...CHANNEL, name: 'accepts' })).body.data;
    const r = await call(s, 'POST', '/admin/netaclaw/channel/update', {
      id: String(base.id),
      model: 'm2',
      createTime: 'ignored',
      somethingElse: { ignored: true },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.model, 'm2');
    // 200 characters outside the BMP are 400 UTF-16 units: still 200 characters
    const model = '🔑'.repeat(200);
    const ok = await call(s, 'POST', '/admin/netaclaw/channel/update', { id: base.id, model });
    assert.equal(ok.status, 200, ok.text);
    const over = await call(s, 'POST', '/admin/netaclaw/channel/update', { id: base.id, model: model + 'x' });
    assert.equal(over.status, 400, over.text);
    assert.match(over.body.error.message, /^model must be at most 200 characters$/);
    // an API key: at most 600 characters, and 600 bytes in UTF-8, so that its encrypted form fits its column
    for (const [apiKey, status, message] of [
      ['k'.repeat(600), 200, null],
      ['k'.repeat(601), 400, /^apiKey must be at most 600 characters$/],
      ['🔑'.repeat(150), 200, null],
      ['🔑'.repeat(151), 400, /^apiKey must be at most 600 bytes in UTF-8$/],
    ]) {
      const r = await call(s, 'POST', '/admin/netaclaw/channel/update', { id: base.id, apiKey });
      assert.equal(r.status, status, r.text);
      if (message) assert.match(r.body.error.message, message);
      else assert.equal(r.body.data.hasApiKey, true);
    }
    // the list filters: null is "no filter", as before
    const tools = await call(s, 'POST', '/admin/netaclaw/tool/page', { page: 1, size: 5, name: null, toolset: 'base', status: null });
    assert.equal(tools.status, 200, tools.text);
    assert.ok(tools.body.data.list.length > 0 && tools.body.data.list.every(t => t.toolset === 'base'), tools.text);
    assert.equal(tools.body.data.pagination.size, 5);
  });

  test('the demo seed goes through the same DTO: a bad entry stops the start, naming it, and adds nothing', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-seed-'));
    const seedFile = path.join(dir, 'agents.json');
    fs.writeFileSync(seedFile, JSON.stringify([{ name: 'fine' }, { name: 'bad', skills: 'nope' }]));
    const db = await backend.fresh();
    try {
      const failed = await startServer({ ...db.env, NETACLAW_SEED_FILE: seedFile }, { expectExit: true });
      assert.match(failed.log(), /agents\.json: entry \[1\]: skills must be an array of strings/);
      assert.deepEqual(await db.sql('SELECT COUNT(*) AS n FROM netaclaw_agent'), [{ n: 0 }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the chat message: the same DTO on REST and on the WebSocket, nested fields named by their path', async () => {
    for (const [body, message] of [
      [{ agentId: 1, message: 'x', workspaceRoots: ['/a', 3] }, /^workspaceRoots\[1\] must be a string$/],
      [{ agentId: 1, message: 'x', workspaceRoots: '/a' }, /^workspaceRoots must be an array of strings$/],
      [{ agentId: 1, message: 'x', writePermitted: 1 }, /^writePermitted must be a boolean$/],
      [{ agentId: 1, message: 'x', sessionId: -3 }, /^sessionId must be a positive integer$/],
      [{ agentId: 1, message: 'x', sessionCwd: 'd'.repeat(1001) }, /^sessionCwd must be at most 1000 characters$/],
    ]) {
      const r = await chat(s, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'invalid_input');
      assert.match(r.body.error.message, message);
      const events = await wsChat(s, body);
      assert.deepEqual(
        events.map(e => [e.type, e.code, e.message]),
        [['error', 'invalid_input', r.body.error.message]]
      );
    }
  });

  test('every answer of a route is { data }; errors are { error }; the pages and event streams are not wrapped', async () => {
    for (const p of ['/health', '/admin/netaclaw/tool/catalog', '/admin/netaclaw/tool/all', '/admin/netaclaw/session/page']) {
      const r = await call(s, 'GET', p, undefined, p === '/health' ? { token: null } : undefined);
      assert.equal(r.status, 200, `${p}: ${r.text}`);
      assert.deepEqual(Object.keys(r.body), ['data'], p);
    }
    const catalog = (await call(s, 'GET', '/admin/netaclaw/tool/catalog')).body.data;
    assert.ok(Array.isArray(catalog) && catalog.some(t => t.name === 'read_file'), 'the value itself, not wrapped twice');
    const missing = await call(s, 'GET', '/admin/netaclaw/no-such-route');
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(missing.body), ['error']);
    const unknownBatch = await call(s, 'GET', '/admin/netaclaw/subagent/events?id=999999');
    assert.equal(unknownBatch.status, 404, unknownBatch.text);
    assert.deepEqual(Object.keys(unknownBatch.body), ['error']);
  });
});
