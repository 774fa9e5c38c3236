'use strict';
/**
 * Custom tools by file (NETACLAW_CATALOG_FILE): read at start, validated by the package, appended to the
 * builtin catalog, synced into the table, governed, and used by every package call of the backend.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { workspace, giveToSandbox } = require('./support/runtime');
const policy = require('@netaclaw/tool-policy');

const BUILTIN = policy.builtinCatalog();

/** The OCR follow-up of seed 001: a vision tool registered by file. */
const VISION_OCR = {
  name: 'vision_ocr',
  toolset: 'vision',
  description: 'Read the text in an image of the workspace.',
  capability: 'vision',
  workerRoutingHint: 'main-process-proxy',
};

function writeTemp(name, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-catalog-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function defineTests(backend) {
  test('a catalog file adds vision_ocr: listed, synced, governed, dropped for a text model (Task 17 + OCR)', async () => {
    const db = await backend.fresh();
    const file = writeTemp('tools.json', JSON.stringify([VISION_OCR]));
    await withServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, async s => {
      assert.match(s.log(), new RegExp(`catalog: ${BUILTIN.length} builtin tools \\+ 1 from .*tools\\.json \\(vision_ocr\\)`));
      assert.deepEqual(s.syncLine, { inserts: BUILTIN.length + 1, updates: 0, orphans: 0 });

      const cat = await call(s, 'GET', '/admin/netaclaw/tool/catalog');
      assert.equal(cat.status, 200, cat.text);
      const expected = [...BUILTIN, VISION_OCR].map(t => policy.toolManifest(t));
      assert.deepEqual(cat.body.data, JSON.parse(JSON.stringify(expected)));
      assert.equal(cat.body.data.at(-1).capability, 'vision');

      const row = (await call(s, 'GET', '/admin/netaclaw/tool/info?name=vision_ocr')).body.data;
      assert.equal(row.toolset, 'vision');
      assert.equal(row.capability, 'vision');
      assert.equal(row.status, 1);
      const fa = (await call(s, 'GET', '/admin/netaclaw/tool/forAgent')).body.data;
      assert.ok(fa.profiles.some(p => p.name === 'vision_ocr'));
      assert.ok(fa.tools.some(t => t.name === 'vision_ocr'));

      // Task 17: a text model (no capability anywhere → text, with the package's warning)
      const agent = { toolsets: ['base', 'vision'] };
      const text = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent })).body.data;
      assert.ok(!text.toolNames.includes('vision_ocr'));
      assert.deepEqual(
        text.disabledReasons.find(d => d.name === 'vision_ocr'),
        { name: 'vision_ocr', reason: 'capability_mismatch' }
      );
      assert.ok(text.warnings.some(w => w.code === 'capability_fallback_text'));
      // a vision model gets it
      const vision = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { ...agent, modelCapability: 'vision' } })).body.data;
      assert.ok(vision.toolNames.includes('vision_ocr'), vision.toolNames.join(','));
      // governed: switched off in the table → disabled_globally
      const off = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'vision_ocr', status: 0 });
      assert.equal(off.status, 200, off.text);
      const governed = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { ...agent, modelCapability: 'vision' } })).body.data;
      assert.deepEqual(
        governed.disabledReasons.find(d => d.name === 'vision_ocr'),
        { name: 'vision_ocr', reason: 'disabled_globally' }
      );
      // the diagnostic sees the same catalog
      const d = (await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', { agent: { ...agent, modelCapability: 'vision' } })).body.data;
      assert.equal(d.routes.at(-1).name, 'vision_ocr');
      assert.equal(d.routes.at(-1).blockedReason, 'disabled_globally');
      // a mirror field of a file tool is owned by the file
      const mirror = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'vision_ocr', capability: 'text' });
      assert.equal(mirror.status, 400, mirror.text);
      assert.equal(mirror.body.error.code, 'update_refused');
    });
    // without the file the tool is an orphan: kept, listed, no longer offered
    await withServer(db.env, async s => {
      assert.deepEqual(s.syncLine, { inserts: 0, updates: 0, orphans: 1 });
      const cat = (await call(s, 'GET', '/admin/netaclaw/tool/catalog')).body.data;
      assert.deepEqual(
        cat.map(t => t.name),
        BUILTIN.map(t => t.name)
      );
    });
  });

  test('a batch whose routes include custom tools: the worker and the main process decide on the merged catalog', async () => {
    const db = await backend.fresh();
    const ws = workspace();
    // a custom tool the main process would run (hint main-process-proxy) and one the worker would run
    const LINT = { name: 'proj_lint', toolset: 'project', description: 'Lint the project.', workerRoutingHint: 'local', supportedInWorker: true };
    const file = writeTemp('tools.json', JSON.stringify([VISION_OCR, LINT]));
    try {
      await withServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, async s => {
        const agent = await call(s, 'POST', '/admin/netaclaw/agent/add', {
          name: 'custom-tools',
          toolsets: ['base', 'vision', 'project'],
          modelCapability: 'vision',
        });
        assert.equal(agent.status, 200, agent.text);
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId: agent.body.data.id,
          sessionCwd: ws.root,
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'vision_ocr', arguments: {} },
            { name: 'proj_lint', arguments: {} },
            { name: 'read_file', arguments: { path: ws.secret } },
          ],
        });
        assert.equal(r.status, 200, r.text);
        const b = r.body.data;
        assert.equal(b.status, 'completed', b.error);
        const route = name => b.routes.find(x => x.name === name)?.route;
        assert.equal(route('vision_ocr'), 'main-process-proxy');
        assert.equal(route('proj_lint'), 'worker-local');
        const [read, ocr, lint, outside] = b.calls;
        // a builtin call runs: the worker's gate knows every tool its routes name
        assert.equal(read.decision, 'worker-local', JSON.stringify(read));
        assert.equal(read.ok, true, JSON.stringify(read));
        assert.equal(read.output, 'alpha\nbeta\ngamma');
        // the worker sent the custom proxy tool to the main process, whose gate (L4) agreed
        assert.equal(ocr.decision, 'main-process-proxy', JSON.stringify(ocr));
        assert.equal(ocr.reason, null);
        assert.equal(ocr.ok, false);
        assert.match(ocr.error, /no implementation of vision_ocr here/);
        // the custom worker-local tool is decided worker-local in the worker (whose registry has no implementation)
        assert.equal(lint.decision, 'worker-local', JSON.stringify(lint));
        assert.match(lint.error, /no implementation of proj_lint here/);
        // and the gate still denies what it must
        assert.equal(outside.decision, 'denied');
        assert.equal(outside.reason, 'path_outside_workspace');
        // no L4 denial was recorded: the two sides agreed on every call
        const info = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${b.id}`)).body.data;
        assert.equal(info.calls.length, 4);
      });
    } finally {
      ws.cleanup();
    }
  });

  test('with a catalog file, a batch worker decides with the same catalog as the main process', async () => {
    const db = await backend.fresh();
    const file = writeTemp('tools.json', JSON.stringify([VISION_OCR]));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-catalog-work-'));
    fs.writeFileSync(path.join(work, 'notes.txt'), 'hello\n');
    giveToSandbox(work);
    await withServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, async s => {
      const agent = (await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'ocr-batch', toolsets: ['base', 'vision'] })).body.data;
      const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
        agentId: agent.id,
        sessionCwd: work,
        calls: [
          { name: 'read_file', arguments: { path: 'notes.txt' } },
          { name: 'vision_ocr', arguments: {} },
        ],
      });
      assert.equal(r.status, 200, r.text);
      const batch = r.body.data;
      // the routes name the file's tool; the worker knows it too
      assert.equal(batch.routes.at(-1).name, 'vision_ocr');
      assert.equal(batch.status, 'completed', batch.error);
      const [read, ocr] = batch.calls;
      assert.deepEqual([read.decision, read.reason, read.ok, read.output], ['worker-local', null, true, 'hello']);
      // a text model: the file's tool is denied with its route's reason, decided by the worker's gate
      assert.deepEqual([ocr.decision, ocr.reason], ['denied', batch.routes.at(-1).blockedReason]);
      assert.equal(ocr.reason, 'capability_mismatch');
    });
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('an unusable catalog file stops the start with a message naming the file', async () => {
    const db = await backend.fresh();
    const cases = [
      [path.join(os.tmpdir(), 'netaclaw-no-such-dir', 'tools.json'), /cannot be read/],
      [writeTemp('bad.json', '[{"name": "x", '), /is not valid JSON/],
      [writeTemp('obj.json', JSON.stringify({ name: 'x', toolset: 'y' })), /must hold a JSON array/],
      [writeTemp('empty-name.json', JSON.stringify([VISION_OCR, { name: '', toolset: 'y' }])), /entry \[1\]: schema\.name/],
      [writeTemp('bad-cap.json', JSON.stringify([{ ...VISION_OCR, capability: 'smell' }])), /entry \[0\]: schema\.capability/],
      [
        writeTemp('dup-builtin.json', JSON.stringify([{ name: 'bash', toolset: 'mine' }])),
        /entry \[0\]\.name: duplicate tool name "bash" \(also builtin tool "bash"\.name\)/,
      ],
      [writeTemp('dup-file.json', JSON.stringify([VISION_OCR, VISION_OCR])), /entry \[1\]\.name: duplicate tool name "vision_ocr" \(also entry \[0\]\.name\)/],
    ];
    for (const [file, detail] of cases) {
      const failed = await startServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, { expectExit: true });
      assert.notEqual(failed.exitCode, 0, failed.log());
      const line = failed
        .log()
        .split('\n')
        .find(l => l.includes('start FAILED'));
      assert.ok(line, failed.log());
      assert.ok(line.includes(`NETACLAW_CATALOG_FILE ${file}:`), line);
      assert.match(line, detail);
    }
    // nothing was written by the failed starts
    await withServer(db.env, async s => {
      assert.deepEqual(s.syncLine, { inserts: BUILTIN.length, updates: 0, orphans: 0 });
    });
  });
}

runOnEveryBackend(defineTests);
