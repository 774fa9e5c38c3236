// The corpus of real MCP servers (js/backend/test/fixtures/mcp-corpus/, recorded by
// scripts/mcp-corpus.mjs): every tool registers through `fromMcpTool` as usable, and from each schema
// a valid call and an invalid one are generated and judged by the reference (Ajv); `checkToolCall`
// must allow every valid call and deny every invalid one. Reads the fixtures only (no network).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fromMcpTool } from '@netaclaw/tool-policy';
import { decide, invalidCall, reference, validCall } from './lib/schema.mjs';

const DIR = new URL('../backend/test/fixtures/mcp-corpus/', import.meta.url);
const servers = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(new URL(f, DIR), 'utf8')));

test('the corpus holds at least 10 servers from npm and PyPI, each with its package, version and date', () => {
  assert.ok(servers.length >= 10, `${servers.length} servers`);
  assert.deepEqual([...new Set(servers.map((s) => s.registry))].sort(), ['npm', 'pypi']);
  for (const s of servers) {
    assert.match(s.package, /\S/);
    assert.match(s.version, /^\d/);
    assert.match(s.recorded, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(s.tools.length > 0, s.server);
  }
});

test('every tool of every server is registered usable and callable', () => {
  const failures = [];
  let total = 0;
  let callable = 0;
  for (const server of servers) {
    for (const tool of server.tools) {
      total++;
      const where = `${server.server}/${tool.name}`;
      const schema = fromMcpTool({ server: server.server, tool });
      if (schema.unusableReason !== undefined) {
        failures.push(`${where}: registered unusable: ${schema.unusableReason}`);
        continue;
      }
      const parameters = schema.parameters;
      const valid = validCall(parameters);
      if (valid === undefined) {
        failures.push(`${where}: no valid call could be generated`);
        continue;
      }
      const allowed = decide(parameters, valid);
      if (allowed.decision === 'denied') {
        failures.push(`${where}: a valid call ${JSON.stringify(valid)} is denied: ${allowed.detail}`);
        continue;
      }
      const invalid = invalidCall(parameters, valid);
      assert.equal(reference(parameters, invalid), false, `${where}: the invalid call is one the reference rejects`);
      const denied = decide(parameters, invalid);
      if (denied.decision !== 'denied') {
        failures.push(`${where}: an invalid call ${JSON.stringify(invalid)} is allowed`);
        continue;
      }
      callable++;
    }
  }
  process.stdout.write(`# mcp corpus: ${callable}/${total} tools callable (${servers.length} servers)\n`);
  assert.deepEqual(failures, []);
  assert.equal(callable, total);
});
