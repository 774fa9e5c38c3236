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
      assert.deepEqual(cat.map(t => t.name), BUILTIN.map(t => t.name));
    });
  });

  test('an unusable catalog file stops the start with a message naming the file', async () => {
    const db = await backend.fresh();
    const cases = [
      [path.join(os.tmpdir(), 'netaclaw-no-such-dir', 'tools.json'), /cannot be read/],
      [writeTemp('bad.json', '[{"name": "x", '), /is not valid JSON/],
      [writeTemp('obj.json', JSON.stringify({ name: 'x', toolset: 'y' })), /must hold a JSON array/],
      [writeTemp('empty-name.json', JSON.stringify([VISION_OCR, { name: '', toolset: 'y' }])), /entry \[1\]: schema\.name/],
      [writeTemp('bad-cap.json', JSON.stringify([{ ...VISION_OCR, capability: 'smell' }])), /entry \[0\]: schema\.capability/],
      [writeTemp('dup-builtin.json', JSON.stringify([{ name: 'bash', toolset: 'mine' }])), /entry \[0\]\.name: duplicate tool name "bash" \(also builtin tool "bash"\.name\)/],
      [writeTemp('dup-file.json', JSON.stringify([VISION_OCR, VISION_OCR])), /entry \[1\]\.name: duplicate tool name "vision_ocr" \(also entry \[0\]\.name\)/],
    ];
    for (const [file, detail] of cases) {
      const failed = await startServer({ ...db.env, NETACLAW_CATALOG_FILE: file }, { expectExit: true });
      assert.notEqual(failed.exitCode, 0, failed.log());
      const line = failed.log().split('\n').find(l => l.includes('start FAILED'));
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
