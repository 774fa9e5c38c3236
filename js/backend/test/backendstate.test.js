'use strict';
/**
 * The backend's own state is never reachable from a workspace root (src/config/backendstate.ts), against the
 * started backend on SQLite with real workers and real bwrap:
 * - a root equal to, inside or containing the data folder, the pages, the code, the policy package, the
 *   catalog file or the SQLite file (or a symlink to one of them) is refused with 400
 *   `root_contains_backend_state` by every request that takes roots, and nothing of it is stored or run;
 * - a symlink *inside* an accepted root that leads into the data folder gives no byte of the admin token
 *   or of the SQLite file, by any tool, in a worker or in the main process, and no denial names where it
 *   leads.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, call, BACKEND_ROOT } = require('./support/server');
const { giveToSandbox } = require('./support/runtime');
const { chat, wsChat, modelEnv } = require('./support/chat');
const { startModel } = require('./support/model');

const REPO = path.resolve(BACKEND_ROOT, '..', '..');
const CODE = 'root_contains_backend_state';

describe('the backend state is never reachable from a workspace root', () => {
  let base;
  let dataDir;
  let dbFile;
  let pages;
  let catalogFile;
  let ws;
  let server;
  let model;
  let token;
  let agentId;
  const as = () => ({ token });

  before(async () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-state-')));
    dataDir = path.join(base, 'data');
    dbFile = path.join(base, 'db', 'netaclaw.sqlite');
    pages = path.join(base, 'pages');
    catalogFile = path.join(base, 'config', 'catalog.json');
    fs.mkdirSync(pages, { recursive: true });
    fs.writeFileSync(path.join(pages, 'index.html'), '<!doctype html><title>pages</title>');
    fs.mkdirSync(path.dirname(catalogFile), { recursive: true });
    fs.copyFileSync(path.join(REPO, 'scripts', 'demo', 'catalog.json'), catalogFile);
    // the demo's catalog names its OCR program beside it
    fs.copyFileSync(path.join(REPO, 'scripts', 'demo', 'vision-ocr.js'), path.join(path.dirname(catalogFile), 'vision-ocr.js'));
    // an accepted root, next to the state, with symlinks into it
    ws = path.join(base, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    fs.symlinkSync(dataDir, path.join(ws, 'state'));
    fs.symlinkSync(path.join(dataDir, 'admin-token'), path.join(ws, 'tok'));
    fs.symlinkSync(dbFile, path.join(ws, 'db'));
    fs.symlinkSync(BACKEND_ROOT, path.join(ws, 'code'));
    fs.symlinkSync(process.execPath, path.join(ws, 'nodebin'));
    // the workspace belongs to the sandbox's user, as an operator gives it
    giveToSandbox(ws);
    // roots that are symlinks to the state
    fs.symlinkSync(dataDir, path.join(base, 'data-link'));
    fs.symlinkSync(REPO, path.join(base, 'checkout-link'));
    model = await startModel();
    // ADMIN_TOKEN empty: the backend makes one and stores it in DATA_DIR/admin-token
    server = await startServer({
      ...modelEnv(model),
      ADMIN_TOKEN: '',
      DATA_DIR: dataDir,
      DB_TYPE: 'sqlite',
      DB_PATH: dbFile,
      STATIC_DIR: pages,
      NETACLAW_CATALOG_FILE: catalogFile,
    });
    token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    const r = await call(server, 'POST', '/admin/netaclaw/agent/add', { name: 'state-probe', toolsets: ['base'] }, as());
    assert.equal(r.status, 200, r.text);
    agentId = r.body.data.id;
  });

  after(async () => {
    if (server) await server.stop();
    if (model) await model.close();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  /** Roots that must be refused, each with what the message names. */
  const refused = () => [
    [REPO, /contains the backend's own (code|policy package)/],
    [path.join(base, 'checkout-link'), /contains the backend's own (code|policy package)/],
    [base, /contains the backend's own data folder/],
    [dataDir, /is the backend's own data folder/],
    [path.join(base, 'data-link'), /is the backend's own data folder/],
    [path.join(dataDir, 'skills'), /is inside the backend's own data folder/],
    [path.join(dataDir, 'not-made-yet', 'x'), /is inside the backend's own data folder/],
    [path.join(BACKEND_ROOT, 'dist'), /is inside the backend's own code/],
    [path.join(BACKEND_ROOT, 'node_modules'), /is inside the backend's own code/],
    [path.join(REPO, 'pkg'), /policy package/],
    [pages, /is the backend's own pages folder/],
    [path.dirname(catalogFile), /contains the backend's own catalog file/],
    [path.dirname(dbFile), /contains the backend's own SQLite database file/],
    ['/', /contains the backend's own/],
  ];

  test('a read-only chat session rooted at the checkout, at the state or at a symlink to it is refused; nothing is stored or sent', async () => {
    for (const [root, what] of refused()) {
      const r = await chat(server, { agentId, message: 'list the files', sessionCwd: root, workspaceRoots: [root] }, as());
      assert.equal(r.status, 400, `${root}: ${r.text}`);
      assert.equal(r.body.error.code, CODE, root);
      assert.match(r.body.error.message, what, root);
      // the message names the root as given, and no other path
      assert.ok(r.body.error.message.includes(JSON.stringify(root)), r.body.error.message);
      const rest = r.body.error.message.replace(JSON.stringify(root), '');
      for (const where of [base, REPO]) assert.ok(!rest.includes(where), r.body.error.message);
    }
    // a second root that reaches the state is refused just the same
    const two = await chat(server, { agentId, message: 'x', sessionCwd: ws, workspaceRoots: [ws, REPO] }, as());
    assert.equal(two.status, 400, two.text);
    assert.equal(two.body.error.code, CODE);
    // over the WebSocket: the same error
    const events = await wsChat(server, { agentId, message: 'x', sessionCwd: REPO, workspaceRoots: [REPO] }, as());
    const last = events[events.length - 1];
    assert.equal(last.type, 'error', JSON.stringify(events));
    assert.equal(last.code, CODE);
    assert.equal(model.requests.length, 0, 'the model was never called');
    const sessions = await call(server, 'GET', '/admin/netaclaw/session/page', undefined, as());
    assert.equal(sessions.status, 200, sessions.text);
    assert.equal(sessions.body.data.total, 0, 'no session was stored');
  });

  test('previewPrompt, the diagnostic and a batch run refuse such roots too; no batch is stored', async () => {
    for (const [root] of refused()) {
      const p = await call(server, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agentId, sessionCwd: root, workspaceRoots: [root] }, as());
      assert.equal(p.status, 400, `${root}: ${p.text}`);
      assert.equal(p.body.error.code, CODE);
      const d = await call(server, 'POST', '/admin/netaclaw/tool/diagnostic', { agentId, sessionCwd: root, workspaceRoots: [root] }, as());
      assert.equal(d.status, 400, `${root}: ${d.text}`);
      assert.equal(d.body.error.code, CODE);
      const b = await call(
        server,
        'POST',
        '/admin/netaclaw/subagent/run',
        { agentId, sessionCwd: root, workspaceRoots: [root], calls: [{ name: 'read_file', arguments: { path: 'admin-token' } }] },
        as()
      );
      assert.equal(b.status, 400, `${root}: ${b.text}`);
      assert.equal(b.body.error.code, CODE);
    }
    const batches = await call(server, 'GET', '/admin/netaclaw/subagent/page', undefined, as());
    assert.equal(batches.status, 200, batches.text);
    assert.equal(batches.body.data.total, 0, 'no batch was stored');
    // control: a root next to the state is accepted
    const ok = await call(server, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agentId, sessionCwd: ws, workspaceRoots: [ws] }, as());
    assert.equal(ok.status, 200, ok.text);
  });

  /** Everything a call record shows. */
  const shown = c => [c.output, c.error, c.detail].filter(x => typeof x === 'string').join('\n');

  function assertNothingLeaks(c) {
    const text = shown(c);
    assert.ok(!text.includes(token), `${c.name} ${JSON.stringify(c.arguments)} shows the admin token: ${text}`);
    assert.ok(!text.includes('SQLite format 3'), `${c.name} shows the SQLite file: ${text}`);
    for (const where of [dataDir, BACKEND_ROOT, fs.realpathSync(process.execPath)]) {
      assert.ok(!text.includes(where), `${c.name} ${JSON.stringify(c.arguments)} names ${where}: ${text}`);
    }
  }

  test('symlinks inside an accepted root that lead into the state give no byte of the token or the database, and no denial says where they lead', async () => {
    const calls = [
      { name: 'read_file', arguments: { path: 'a.txt' } },
      { name: 'read_file', arguments: { path: 'tok' } },
      { name: 'read_file', arguments: { path: 'state/admin-token' } },
      { name: 'read_file', arguments: { path: 'db' } },
      { name: 'read_file', arguments: { path: 'code/package.json' } },
      { name: 'read_file', arguments: { path: 'nodebin' } },
      { name: 'list_dir', arguments: { path: 'state' } },
      { name: 'find_files', arguments: { path: 'state', pattern: '*' } },
      { name: 'grep', arguments: { path: 'state', pattern: '.' } },
      { name: 'grep', arguments: { pattern: '[0-9a-f]{64}' } },
      { name: 'bash', arguments: { command: 'cat tok state/admin-token db; ls state; cat code/package.json' } },
    ];
    const r = await call(server, 'POST', '/admin/netaclaw/subagent/run', { agentId, sessionCwd: ws, shellPermitted: true, calls }, as());
    assert.equal(r.status, 200, r.text);
    const b = r.body.data;
    assert.equal(b.calls.length, calls.length);
    assert.equal(b.calls[0].output, 'alpha');
    for (const c of b.calls.slice(1)) assertNothingLeaks(c);
    for (const c of b.calls.slice(1, 9)) {
      assert.equal(c.decision, 'denied', `${c.name} ${JSON.stringify(c.arguments)}`);
      assert.equal(c.reason, 'path_outside_workspace');
      // the denial (the stored call's error) names the path as the call gave it, inside the root
      const why = c.detail ?? c.error;
      assert.ok(why.startsWith(`path: ${ws}/`), why);
      // (inside the worker's sandbox a target outside the roots is not even there: the link dangles)
      assert.match(why, /^path: \S+ (leads outside every workspace root \(through a symlink\)|cannot be resolved \(EDANGLING\))$/);
    }
    const bash = b.calls[10];
    assert.equal(bash.decision, 'worker-local');
    assert.match(bash.output, /No such file or directory/);
  });

  test("the main agent's own calls through such symlinks give the model nothing of the state", async () => {
    const paths = ['tok', 'state/admin-token', 'db', 'nodebin'];
    model.push({ toolCalls: paths.map((p, i) => ({ id: `c${i}`, name: 'read_file', arguments: { path: p } })) }, { content: 'done' });
    const r = await chat(server, { agentId, message: 'read them', sessionCwd: ws, workspaceRoots: [ws] }, as());
    assert.equal(r.status, 200, r.text);
    const calls = r.body.data.toolCalls;
    assert.equal(calls.length, paths.length);
    for (const c of calls) {
      assert.equal(c.decision, 'denied', JSON.stringify(c));
      assert.equal(c.reason, 'path_outside_workspace');
      assertNothingLeaks(c);
    }
    // what went back to the model
    const sent = JSON.stringify(model.requests[model.requests.length - 1].body.messages);
    assert.ok(!sent.includes(token));
    assert.ok(!sent.includes(dataDir));
    assert.ok(!sent.includes(fs.realpathSync(process.execPath)));
  });
});

describe("the backend's state lives outside the checkout by default", () => {
  test('no DATA_DIR or STATIC_DIR: data in ~/.local/share/netaclaw/data (or $XDG_DATA_HOME/netaclaw/data), pages served from …/pages', async () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-home-')));
    try {
      const pages = path.join(home, '.local', 'share', 'netaclaw', 'pages');
      fs.mkdirSync(pages, { recursive: true });
      fs.writeFileSync(path.join(pages, 'index.html'), '<!doctype html><title>copied pages</title>');
      const s = await startServer({ HOME: home, XDG_DATA_HOME: '', ADMIN_TOKEN: '' });
      try {
        const data = path.join(home, '.local', 'share', 'netaclaw', 'data');
        const token = fs.readFileSync(path.join(data, 'admin-token'), 'utf8').trim();
        assert.ok(fs.existsSync(path.join(data, 'netaclaw.sqlite')));
        assert.match(s.log(), new RegExp(`serving pages from ${pages.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        const page = await fetch(`${s.url}/`);
        assert.match(await page.text(), /copied pages/);
        // nothing was written into the checkout
        assert.ok(
          !fs.existsSync(path.join(BACKEND_ROOT, 'data', 'admin-token')) ||
            !fs.readFileSync(path.join(BACKEND_ROOT, 'data', 'admin-token'), 'utf8').includes(token)
        );
        // the home folder holds the data: a root there is refused
        const r = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'x' }, sessionCwd: home }, { token });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.error.code, CODE);
      } finally {
        await s.stop();
      }
      const xdg = path.join(home, 'xdg');
      const s2 = await startServer({ HOME: home, XDG_DATA_HOME: xdg, ADMIN_TOKEN: 'x'.repeat(32) });
      try {
        assert.ok(fs.existsSync(path.join(xdg, 'netaclaw', 'data', 'netaclaw.sqlite')));
        assert.match(s2.log(), /no pages at \S+\/xdg\/netaclaw\/pages/);
      } finally {
        await s2.stop();
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
