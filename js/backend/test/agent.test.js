'use strict';
/**
 * The agent runtime through the real server: the executor, the REST and WebSocket gateway, crew roles,
 * the prompt the model receives, faults and limits. The model is a scripted OpenAI-compatible server on
 * loopback (test/support/model.js); everything else is real.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call, installSkill, TOKEN } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, openWs, wsChat, addAgent, modelEnv, tmpDir } = require('./support/chat');
const policy = require('@netaclaw/tool-policy');

const model = modelForFile();

async function sessionInfo(s, id) {
  const r = await call(s, 'GET', `/admin/netaclaw/session/info?id=${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

/** The tool names of Layer 4 (lines `- <name>: …`) of a system prompt. */
function guidanceNames(layer) {
  return layer
    .split('\n')
    .filter(l => /^- [A-Za-z0-9_]+: /.test(l))
    .map(l => l.slice(2, l.indexOf(':')));
}

/**
 * A catalog file of two custom command tools running test/fixtures/call-probe.js: `probe_parallel`
 * (executionMode parallel) and `probe_sequential` (sequential).
 */
function probeCatalog() {
  const tool = (name, executionMode) => ({
    name,
    toolset: 'probe',
    description: 'Marks itself running in the workspace and says which other calls it saw running.',
    kind: 'custom',
    executionMode,
    workerRoutingHint: 'main-process-proxy',
    requiresWorkspaceRoot: true,
    requiresWrite: true,
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' }, waitFor: { type: 'array', items: { type: 'string' } }, holdMs: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    },
    implementation: { type: 'command', command: [path.join(__dirname, 'fixtures', 'call-probe.js')], timeoutMs: 30000 },
  });
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'netaclaw-probe-catalog-'));
  const file = path.join(dir, 'catalog.json');
  fs.writeFileSync(file, JSON.stringify([tool('probe_parallel', 'parallel'), tool('probe_sequential', 'sequential')]));
  return file;
}

/** The tool messages of a recorded request. */
function toolMessages(i) {
  return model.requests.at(i).body.messages.filter(m => m.role === 'tool');
}

function defineTests(backend) {
  test('Task 16: bash disabled is not offered; a model that calls it anyway is denied tool_not_offered and nothing runs', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, {
        name: 'task16',
        systemPrompt: 'You are a careful coder.',
        toolsets: ['base', 'planning'],
        tools: { disabled: ['bash'] },
      });
      const marker = path.join(work, 'ran');
      model.push(
        { content: 'Let me run it.', toolCalls: [{ id: 'call_b', name: 'bash', arguments: { command: `touch ${marker}` } }] },
        { content: 'I cannot run shell commands here.' }
      );
      const session = { sessionCwd: work, shellPermitted: true, writePermitted: true };
      const r = await chat(s, { agentId: agent.id, message: 'Run `touch ran` with bash.', ...session });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      const d = r.body.data;
      assert.equal(d.reply, 'I cannot run shell commands here.');
      assert.equal(d.stopReason, 'stop');
      assert.deepEqual(d.batchIds, []);
      assert.equal(d.toolCalls.length, 1);
      assert.deepEqual(
        { name: d.toolCalls[0].name, decision: d.toolCalls[0].decision, reason: d.toolCalls[0].reason, ok: d.toolCalls[0].ok },
        { name: 'bash', decision: 'denied', reason: 'tool_not_offered', ok: false }
      );
      assert.deepEqual(d.toolCalls[0].arguments, { command: `touch ${marker}` });
      assert.ok(!fs.existsSync(marker), 'bash did not run');

      // L0 in the recorded requests: bash not offered; the preview's tools are exactly what was offered
      assert.equal(model.requests.length, 2);
      const preview = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id, ...session })).body.data;
      for (const i of [0, 1]) {
        assert.ok(!model.offered(i).includes('bash'));
        assert.deepEqual(model.offered(i), preview.toolNames);
        assert.equal(model.system(i), preview.systemPrompt, 'the preview is byte for byte the system message');
      }
      for (const n of ['read_file', 'write_file', 'list_dir', 'patch', 'todo']) assert.ok(model.offered(0).includes(n), n);
      // each offered with the package's description and JSON Schema
      const manifests = Object.fromEntries(policy.builtinCatalog().map(t => [t.name, policy.toolManifest(t)]));
      for (const t of model.requests[0].body.tools) {
        assert.equal(t.type, 'function');
        assert.equal(t.function.description, manifests[t.function.name].description);
        assert.deepEqual(t.function.parameters, manifests[t.function.name].parameters, t.function.name);
      }
      assert.equal(model.requests[0].body.model, 'scripted-1');
      assert.equal(model.requests[0].body.stream, true);
      // the denial went back to the model as the tool result, with the package's label
      const [result] = toolMessages(1);
      assert.equal(result.tool_call_id, 'call_b');
      assert.match(result.content, new RegExp(`^Tool call denied \\(tool_not_offered\\): ${policy.label('reasons', 'tool_not_offered', 'en')}`));

      // the session, its messages, in order
      const info = await sessionInfo(s, d.sessionId);
      assert.equal(info.agentId, agent.id);
      assert.equal(info.sessionCwd, work);
      assert.equal(info.shellPermitted, true);
      assert.deepEqual(
        info.messages.map(m => [m.seq, m.role]),
        [
          [1, 'user'],
          [2, 'assistant'],
          [3, 'tool'],
          [4, 'assistant'],
        ]
      );
      assert.deepEqual(info.messages[1].toolCalls, [{ id: 'call_b', name: 'bash', arguments: JSON.stringify({ command: `touch ${marker}` }) }]);
      assert.equal(info.messages[2].toolCallId, 'call_b');
      assert.deepEqual(
        info.calls.map(c => [c.seq, c.name, c.decision, c.reason, c.ok]),
        [[1, 'bash', 'denied', 'tool_not_offered', false]]
      );
      const page = (await call(s, 'GET', `/admin/netaclaw/session/page?agentId=${agent.id}`)).body.data;
      assert.equal(page.total, 1);
      assert.equal(page.list[0].id, d.sessionId);
      assert.equal(page.list[0].title, 'Run `touch ran` with bash.');
    });
  });

  test('Task 18: a promptHint on patch leads Layer 4 of the system message the model receives', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'task18', toolsets: ['base'] });
      // a session that may write: patch is offered (Layer 4 names the tools offered)
      const session = { sessionCwd: tmpDir(), writePermitted: true };
      model.push({ content: 'before' });
      assert.equal((await chat(s, { agentId: agent.id, message: 'hi', ...session })).status, 200);
      const defaultLine = model
        .system(-1)
        .split('\n')
        .find(l => l.startsWith('- patch: '));
      assert.ok(defaultLine, model.system(-1));
      const hint = 'HINT-18: send one unified diff per file, three lines of context.';
      assert.equal((await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'patch', promptHint: hint })).status, 200);
      model.push({ content: 'after' });
      const r = await chat(s, { agentId: agent.id, message: 'hi again', ...session });
      assert.equal(r.status, 200, r.text);
      const system = model.system(-1);
      assert.ok(system.split('\n').includes(`- patch: ${hint}`), system);
      assert.ok(!system.includes(defaultLine), 'the default patch guidance is replaced');
      const preview = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id, ...session })).body.data;
      assert.equal(system, preview.systemPrompt);
      assert.ok(system.endsWith('\n\n' + preview.layers.find(l => l.key === 'tools').content), 'Layer 4 closes the prompt');
    });
  });

  test('Layer 4 names exactly the tools offered: bash, resolved but not offered without shellPermitted, has no line', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'layer4', toolsets: ['base', 'planning'] });
      model.push({ content: 'hello' });
      const session = { sessionCwd: tmpDir(), writePermitted: true };
      const r = await chat(s, { agentId: agent.id, message: 'hi', ...session });
      assert.equal(r.status, 200, r.text);
      const preview = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id, ...session })).body.data;
      assert.ok(preview.toolNames.includes('bash'), 'bash is resolved');
      assert.ok(!model.offered(0).includes('bash'), 'bash is not offered');
      const layer = preview.layers.find(l => l.key === 'tools').content;
      assert.deepEqual(guidanceNames(layer), model.offered(0), layer);
      assert.ok(
        !model
          .system(0)
          .split('\n')
          .some(l => l.startsWith('- bash: ')),
        model.system(0)
      );
      assert.equal(model.system(0), preview.systemPrompt);
    });
  });

  test('no usable shell sandbox: bash and execute_skill are not offered, even with shellPermitted', async () => {
    model.reset();
    const db = await backend.fresh();
    installSkill(db.env, 'release-notes');
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_BWRAP: '/nonexistent/bwrap' }, async s => {
      const health = await call(s, 'GET', '/health', undefined, { token: null });
      assert.equal(health.body.data.shellSandbox, 'unavailable');
      const agent = await addAgent(s, { name: 'noshell', toolsets: ['base', 'skills'], skills: ['release-notes'] });
      model.push({ content: 'no shell here' });
      const session = { sessionCwd: tmpDir(), shellPermitted: true, writePermitted: true };
      const r = await chat(s, { agentId: agent.id, message: 'run something', ...session });
      assert.equal(r.status, 200, r.text);
      const offered = model.offered(0);
      for (const name of ['read_file', 'write_file', 'read_skill']) assert.ok(offered.includes(name), `${name} is offered: ${offered}`);
      for (const name of ['bash', 'execute_skill']) assert.ok(!offered.includes(name), `${name} is not offered: ${offered}`);
      const system = model.system(0);
      assert.ok(system.includes('- shell commands: not allowed'), system);
      assert.deepEqual(guidanceNames(system), offered);
      // the diagnostic says the same
      const d = (await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', { agentId: agent.id, ...session })).body.data;
      assert.deepEqual(d.offered, offered);
      // the session keeps what it was started with
      const info = await sessionInfo(s, r.body.data.sessionId);
      assert.equal(info.shellPermitted, true);
    });
  });

  test("the calls of one answer: parallel ones side by side (at most 4 at once), a sequential one alone, results in the model's order", async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_CATALOG_FILE: probeCatalog() }, async s => {
      const agent = await addAgent(s, { name: 'sider', toolsets: ['probe'] });
      const four = ['q1', 'q2', 'q3', 'q4'];
      const calls = [
        // each of the first four waits (at most 10 s) until the three others have started
        ...four.map(id => ({ id, name: 'probe_parallel', arguments: { id, waitFor: four.filter(o => o !== id) } })),
        { id: 'q5', name: 'probe_parallel', arguments: { id: 'q5', holdMs: 300 } },
        { id: 's1', name: 'probe_sequential', arguments: { id: 's1', holdMs: 500 } },
        { id: 'q6', name: 'probe_parallel', arguments: { id: 'q6', holdMs: 300 } },
      ];
      model.push({ toolCalls: calls }, { content: 'probed' });
      const r = await chat(s, { agentId: agent.id, message: 'probe', sessionCwd: work, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      // the results, in the model's order: in the answer and as the model reads them
      assert.deepEqual(
        r.body.data.toolCalls.map(c => c.id),
        calls.map(c => c.id)
      );
      assert.deepEqual(
        toolMessages(1).map(m => m.tool_call_id),
        calls.map(c => c.id)
      );
      const seen = {};
      for (const c of r.body.data.toolCalls) {
        assert.equal(c.ok, true, JSON.stringify(c));
        const o = JSON.parse(c.output.split('\n')[0]);
        assert.equal(o.id, c.id);
        seen[o.id] = o;
      }
      assert.equal(toolMessages(1)[0].content.split('\n')[0], JSON.stringify(seen.q1), 'each result goes back to its own call');
      for (const id of four)
        assert.deepEqual(
          [...seen[id].waited].sort(),
          four.filter(o => o !== id),
          `${id} ran beside the three others: ${JSON.stringify(seen[id])}`
        );
      for (const o of Object.values(seen)) assert.ok(o.overlapped.length <= 3, `at most four calls at once: ${JSON.stringify(o)}`);
      assert.deepEqual(seen.s1.overlapped, [], 'the sequential call ran alone');
      for (const o of Object.values(seen)) assert.ok(!o.overlapped.includes('s1'), `nothing ran beside the sequential call: ${JSON.stringify(o)}`);
      const order = fs.readFileSync(path.join(work, 'started.log'), 'utf8').trim().split('\n');
      assert.equal(order.length, 7, order.join(','));
      assert.deepEqual(order.slice(5), ['s1', 'q6'], `the sequential call started after the five before it, the last one after it: ${order}`);
    });
  });

  test("a sub-agent's parallel calls run side by side too: its batch's workers, one sequence of calls", async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_CATALOG_FILE: probeCatalog() }, async s => {
      const agent = await addAgent(s, { name: 'sublead', crewRole: 'master', toolsets: ['probe', 'delegation'] });
      const task = 'Probe side by side.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      const calls = [
        { id: 'a1', name: 'probe_parallel', arguments: { id: 'a1', waitFor: ['a2'] } },
        { id: 'a2', name: 'probe_parallel', arguments: { id: 'a2', waitFor: ['a1'] } },
        { id: 'a3', name: 'probe_sequential', arguments: { id: 'a3', holdMs: 300 } },
      ];
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task } }] },
        { when: isSub, toolCalls: calls },
        { when: isSub, content: 'probed' },
        { when: b => !isSub(b), content: 'done' }
      );
      const r = await chat(s, { agentId: agent.id, message: 'go', sessionCwd: work, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      assert.deepEqual(
        toolMessages(2).map(m => m.tool_call_id),
        ['a1', 'a2', 'a3'],
        "the sub-agent's results in its model's order"
      );
      const seen = Object.fromEntries(toolMessages(2).map(m => [m.tool_call_id, JSON.parse(m.content.split('\n')[0])]));
      assert.deepEqual(seen.a1.waited, ['a2'], JSON.stringify(seen));
      assert.deepEqual(seen.a2.waited, ['a1'], JSON.stringify(seen));
      assert.deepEqual(seen.a3.overlapped, [], 'the sequential call ran alone');
      const batchId = r.body.data.batchIds[0];
      const info = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${batchId}`)).body.data;
      assert.equal(info.status, 'completed');
      assert.deepEqual(
        info.calls.map(c => c.seq).sort((x, y) => x - y),
        [1, 2, 3],
        'one sequence of call numbers'
      );
      assert.ok(
        info.calls.every(c => c.ok),
        JSON.stringify(info.calls)
      );
    });
  });

  test('Task 17 + OCR: vision_ocr (by file) is not offered on a text channel, offered on a vision channel, governed', async () => {
    model.reset();
    const db = await backend.fresh();
    const dir = tmpDir();
    const file = path.join(dir, 'tools.json');
    fs.writeFileSync(
      file,
      JSON.stringify([
        { name: 'vision_ocr', toolset: 'vision', capability: 'vision', workerRoutingHint: 'main-process-proxy', description: 'Read the text in an image.' },
      ])
    );
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_CATALOG_FILE: file }, async s => {
      const agent = await addAgent(s, { name: 'ocr', toolsets: ['base', 'vision'] });
      // the default channel is a text model
      const preview = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id })).body.data;
      assert.deepEqual(
        preview.disabledReasons.find(x => x.name === 'vision_ocr'),
        { name: 'vision_ocr', reason: 'capability_mismatch' }
      );
      model.push({ toolCalls: [{ id: 'c1', name: 'vision_ocr', arguments: { path: 'scan.png' } }] }, { content: 'That tool is not available to me.' });
      const r = await chat(s, { agentId: agent.id, message: 'Read scan.png' });
      assert.equal(r.status, 200, r.text);
      assert.ok(!model.offered(0).includes('vision_ocr'));
      assert.equal(r.body.data.toolCalls[0].reason, 'tool_not_offered');

      // a vision channel for the agent: offered, with the file's description
      const vision = (await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'vl', baseUrl: model.baseUrl, model: 'scripted-vl', capability: 'vision' }))
        .body.data;
      await call(s, 'POST', '/admin/netaclaw/agent/update', { id: agent.id, modelChannelId: vision.id });
      model.push({ content: 'ok' });
      assert.equal((await chat(s, { agentId: agent.id, message: 'Read scan.png' })).status, 200);
      assert.equal(model.requests.at(-1).body.model, 'scripted-vl');
      assert.ok(model.offered(-1).includes('vision_ocr'), model.offered(-1).join(','));
      const offeredTool = model.requests.at(-1).body.tools.find(t => t.function.name === 'vision_ocr');
      assert.equal(offeredTool.function.description, 'Read the text in an image.');
      // governed: switched off in the table, no longer offered
      await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'vision_ocr', status: 0 });
      model.push({ content: 'ok' });
      assert.equal((await chat(s, { agentId: agent.id, message: 'again' })).status, 200);
      assert.ok(!model.offered(-1).includes('vision_ocr'));
    });
  });

  test('REST = WebSocket: same events, same answer, same request to the model', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'same', systemPrompt: 'Be brief.', toolsets: ['base', 'planning'], tools: { disabled: ['bash'] } });
      const script = () =>
        model.push(
          { chunks: ['Checking', ' the ', 'shell…'], toolCalls: [{ id: 'x1', name: 'bash', arguments: { command: 'ls' } }] },
          { chunks: ['No ', 'shell ', 'here.'] }
        );
      const request = { agentId: agent.id, message: 'list files', sessionCwd: tmpDir(), writePermitted: true };
      script();
      const rest = await chat(s, request);
      assert.equal(rest.status, 200, rest.text);
      const restRequests = model.requests.splice(0);
      script();
      const events = await wsChat(s, request);
      const wsRequests = model.requests.splice(0);
      assert.deepEqual(model.problems, []);

      const done = events.at(-1);
      assert.equal(done.type, 'done', JSON.stringify(events));
      const { type: _t, ...wsAnswer } = done;
      const strip = a => ({ ...a, sessionId: 0, toolCalls: a.toolCalls.map(c => ({ ...c, durationMs: 0 })) });
      assert.deepEqual(strip(wsAnswer), strip(rest.body.data));
      assert.notEqual(wsAnswer.sessionId, rest.body.data.sessionId, 'each started its own session');
      // the stream: deltas of both model turns, the call and its result, then done
      assert.deepEqual(
        events.map(e => e.type),
        ['delta', 'delta', 'delta', 'tool-call', 'tool-result', 'delta', 'delta', 'delta', 'done']
      );
      assert.equal(
        events
          .filter(e => e.type === 'delta')
          .map(e => e.text)
          .join(''),
        'Checking the shell…No shell here.'
      );
      assert.ok(events.every(e => e.sessionId === wsAnswer.sessionId));
      const call1 = events.find(e => e.type === 'tool-call');
      assert.deepEqual(
        { id: call1.id, name: call1.name, arguments: call1.arguments, batchId: call1.batchId },
        { id: 'x1', name: 'bash', arguments: { command: 'ls' }, batchId: null }
      );
      const res1 = events.find(e => e.type === 'tool-result');
      assert.equal(res1.reason, 'tool_not_offered');
      // the model saw the same requests
      assert.equal(wsRequests.length, 2);
      assert.deepEqual(
        wsRequests.map(r => r.body),
        restRequests.map(r => r.body)
      );
    });
  });

  test('delegation: a master delegates a task; the sub-agent runs in a batch, stored and listed', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'notes.txt'), 'hello from the workspace\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, {
        name: 'lead',
        systemPrompt: 'You lead a crew.',
        crewRole: 'master',
        toolsets: ['base', 'planning', 'delegation'],
      });
      const task = 'Read notes.txt and tell me what it says.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        {
          when: b => !isSub(b),
          content: 'Delegating.',
          toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task, tools: ['read_file', 'delegate_task'] } }],
        },
        {
          when: isSub,
          toolCalls: [
            { id: 's1', name: 'read_file', arguments: { path: 'notes.txt' } },
            { id: 's2', name: 'bash', arguments: { command: 'id' } },
          ],
        },
        { when: isSub, content: 'The notes say hello from the workspace.' },
        { when: b => !isSub(b), content: 'Your notes say hello.' }
      );
      const events = await wsChat(s, { agentId: agent.id, message: 'What do my notes say?', sessionCwd: work });
      assert.deepEqual(model.problems, []);
      const done = events.at(-1);
      assert.equal(done.type, 'done', JSON.stringify(events.at(-1)));
      assert.equal(done.reply, 'Your notes say hello.');
      assert.equal(done.batchIds.length, 1);
      const batchId = done.batchIds[0];
      const [delegated] = done.toolCalls;
      assert.equal(delegated.name, 'delegate_task');
      assert.equal(delegated.ok, true, JSON.stringify(delegated));
      assert.match(delegated.output, /The notes say hello from the workspace\./);

      // the master was offered delegate_*; the sub-agent only its batch's runnable routes
      assert.ok(model.offered(0).includes('delegate_task'));
      assert.deepEqual(model.offered(1), ['read_file'], 'subagentTools ∩ resolved, no delegate_* for a sub');
      assert.match(model.system(1), /You are a sub-agent/);
      assert.match(model.system(1), new RegExp(`- working directory: ${work}`));
      // the sub-agent's read_file ran in the worker; its bash was not offered: the call port denies it (L0)
      const subResults = toolMessages(2);
      assert.equal(subResults[0].content.trim(), 'hello from the workspace');
      assert.match(subResults[1].content, /^Tool call denied \(tool_not_offered\)/, 'L0 denies it');

      // the stream: the batch, its calls (with its id), and the delegate call of the master
      const batchEvents = events.filter(e => e.type === 'batch');
      assert.deepEqual(
        batchEvents.map(e => [e.batchId, e.status]),
        [
          [batchId, 'running'],
          [batchId, 'completed'],
        ]
      );
      // (both parallel: they ran side by side, and the stream has them in the order they ended)
      const subCalls = events.filter(e => e.type === 'tool-result' && e.batchId === batchId);
      assert.deepEqual(subCalls.map(e => [e.name, e.decision, e.reason, e.ok]).sort(), [
        ['bash', 'denied', 'tool_not_offered', false],
        ['read_file', 'worker-local', null, true],
      ]);

      // stored and listed
      const page = (await call(s, 'GET', `/admin/netaclaw/subagent/page?agentId=${agent.id}`)).body.data;
      assert.equal(page.total, 1);
      assert.equal(page.list[0].id, batchId);
      assert.equal(page.list[0].crewRole, 'sub');
      assert.equal(page.list[0].driver, 'model');
      assert.equal(page.list[0].status, 'completed');
      assert.equal(String(page.list[0].sessionId), String(done.sessionId));
      // the session's batches, as the chat page lists them
      const bySession = (await call(s, 'GET', `/admin/netaclaw/subagent/page?sessionId=${done.sessionId}`)).body.data;
      assert.deepEqual([bySession.total, bySession.list.map(b => b.id)], [1, [batchId]]);
      const otherSession = (await call(s, 'GET', `/admin/netaclaw/subagent/page?sessionId=${done.sessionId + 1000}`)).body.data;
      assert.deepEqual([otherSession.total, otherSession.list], [0, []]);
      assert.equal((await call(s, 'GET', `/admin/netaclaw/subagent/page?sessionId=${'x'.repeat(65)}`)).status, 400);
      const info = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${batchId}`)).body.data;
      assert.deepEqual(info.policy.workspaceRoots, [work]);
      assert.deepEqual(info.calls.map(c => [c.name, c.ok]).sort(), [
        ['bash', false],
        ['read_file', true],
      ]);
      // the session lists its own calls (the master's delegate call)
      const session = await sessionInfo(s, done.sessionId);
      assert.deepEqual(
        session.calls.map(c => [c.name, c.decision, c.ok]),
        [['delegate_task', 'main-process-proxy', true]]
      );
    });
  });

  test('delegate_parallel: one batch per task, run side by side, answers joined', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'fan-out', crewRole: 'master', toolsets: ['base', 'delegation'] });
      const taskOf = body => body.messages.find(m => m.role === 'user')?.content;
      const answer = body => {
        const t = taskOf(body);
        if (t === 'task A') return { content: 'answer A' };
        if (t === 'task B') return { content: 'answer B' };
        return { content: 'Both done.' };
      };
      model.push(
        { toolCalls: [{ id: 'p1', name: 'delegate_parallel', arguments: { tasks: [{ task: 'task A' }, { task: 'task B', tools: ['list_dir'] }] } }] },
        answer,
        answer,
        answer
      );
      const r = await chat(s, { agentId: agent.id, message: 'split the work', sessionCwd: work });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      assert.equal(r.body.data.reply, 'Both done.');
      assert.equal(r.body.data.batchIds.length, 2);
      const [call1] = r.body.data.toolCalls;
      assert.equal(call1.ok, true, JSON.stringify(call1));
      assert.match(call1.output, /## Task 1\n\[sub-agent batch \d+\]\nanswer A/);
      assert.match(call1.output, /## Task 2\n\[sub-agent batch \d+\]\nanswer B/);
      const subB = model.requests.find(q => taskOf(q.body) === 'task B');
      assert.deepEqual(
        subB.body.tools.map(t => t.function.name),
        ['list_dir']
      );
      const page = (await call(s, 'GET', `/admin/netaclaw/subagent/page?agentId=${agent.id}`)).body.data;
      assert.deepEqual(page.list.map(b => b.id).sort(), [...r.body.data.batchIds].sort());
      assert.ok(page.list.every(b => b.status === 'completed' && b.crewRole === 'sub'));
      // Arguments outside the tool's catalog parameters are denied by the package (checkToolCall), as any
      // call's are: a denied call, not a failed turn, and no batch is started.
      const tooMany = Array.from({ length: 11 }, (_, i) => ({ task: `task ${i}` }));
      model.push(
        {
          toolCalls: [
            { id: 'p2', name: 'delegate_parallel', arguments: { tasks: [] } },
            { id: 'p3', name: 'delegate_parallel', arguments: { tasks: tooMany } },
            { id: 'p4', name: 'delegate_task', arguments: { task: 5 } },
            { id: 'p5', name: 'delegate_task', arguments: { task: 'x', tools: ['read_file'], extra: true } },
          ],
        },
        { content: 'ok' }
      );
      const bad = await chat(s, { agentId: agent.id, sessionId: r.body.data.sessionId, message: 'again' });
      assert.equal(bad.status, 200, bad.text);
      assert.deepEqual(
        bad.body.data.toolCalls.map(c => [c.name, c.decision, c.reason, c.ok, c.detail]),
        [
          ['delegate_parallel', 'denied', 'invalid_tool_arguments', false, 'arguments.tasks: must not be empty'],
          ['delegate_parallel', 'denied', 'invalid_tool_arguments', false, 'arguments.tasks: must have at most 10 items'],
          ['delegate_task', 'denied', 'invalid_tool_arguments', false, 'arguments.task: expected a string, got a number'],
          ['delegate_task', 'denied', 'invalid_tool_arguments', false, bad.body.data.toolCalls[3].detail],
        ]
      );
      assert.match(bad.body.data.toolCalls[3].detail, /arguments\.extra/);
      assert.deepEqual(bad.body.data.batchIds, [], 'no batch for a denied delegation');
      const after = (await call(s, 'GET', `/admin/netaclaw/subagent/page?agentId=${agent.id}`)).body.data;
      assert.equal(after.list.length, 2, 'still only the two batches of the first turn');
      // the model was told why, and the session stored each denied call
      const told = model.requests
        .at(-1)
        .body.messages.filter(m => m.role === 'tool')
        .map(m => m.content);
      assert.ok(
        told.some(t => t.includes('Tool call denied (invalid_tool_arguments)') && t.includes('at most 10 items')),
        told.join('\n')
      );
      const stored = (await sessionInfo(s, r.body.data.sessionId)).calls;
      assert.deepEqual(
        stored.slice(-4).map(c => [c.name, c.decision, c.reason]),
        [
          ['delegate_parallel', 'denied', 'invalid_tool_arguments'],
          ['delegate_parallel', 'denied', 'invalid_tool_arguments'],
          ['delegate_task', 'denied', 'invalid_tool_arguments'],
          ['delegate_task', 'denied', 'invalid_tool_arguments'],
        ]
      );
    });
  });

  test('cancel during a delegated task kills its batch; the session goes on', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'lead2', crewRole: 'master', toolsets: ['base', 'delegation'] });
      const task = 'List the workspace.';
      model.push(
        { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task } }] },
        // the sub-agent starts answering, then stalls
        { chunks: ['Looking', ' at it', '…'], stallMs: 20000, stallAfterChunks: 2 }
      );
      const c = openWs(s);
      await c.opened;
      const running = c.next(e => e.type === 'batch' && e.status === 'running');
      const subDelta = c.next(e => e.type === 'delta' && e.batchId !== null);
      c.send({ type: 'chat', agentId: agent.id, message: 'What is in my workspace?', sessionCwd: work });
      const { batchId, sessionId } = await running;
      await subDelta;
      const killed = c.next(e => e.type === 'batch' && e.status === 'killed');
      const end = c.next(e => e.type === 'error');
      c.send({ type: 'cancel' });
      assert.equal((await end).code, 'cancelled');
      assert.equal((await killed).batchId, batchId);
      await c.close();
      assert.equal(await model.aborted(), true, 'the sub-agent model stream was aborted');
      const batch = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${batchId}`)).body.data;
      assert.equal(batch.status, 'killed');
      // the history stays valid and the session answers again
      model.push({ content: 'Back.' });
      const next = await chat(s, { agentId: agent.id, sessionId, message: 'still there?' });
      assert.equal(next.status, 200, next.text);
      const sent = model.requests.at(-1).body.messages;
      const delegateResult = sent.find(m => m.role === 'tool' && m.tool_call_id === 'd1');
      assert.equal(delegateResult.content, 'Tool call cancelled.');
      const info = await sessionInfo(s, sessionId);
      assert.deepEqual(
        info.messages.map(m => m.role),
        ['user', 'assistant', 'tool', 'error', 'user', 'assistant']
      );
    });
  });

  test('main-process tools run under the session policy; every call is recorded with the session', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'writer', toolsets: ['base', 'planning'], tools: { disabled: ['bash'] } });
      model.push(
        {
          toolCalls: [
            { id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'written by the agent' } },
            { id: 'w2', name: 'write_file', arguments: { path: '/etc/netaclaw-escape.txt', content: 'x' } },
            { id: 'w3', name: 'read_file', arguments: { path: 5 } },
            { id: 'w4', name: 'bash', arguments: { command: 'id' } },
          ],
        },
        { content: 'Wrote out.txt.' }
      );
      const r = await chat(s, { agentId: agent.id, message: 'write out.txt', sessionCwd: work, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      const byId = Object.fromEntries(r.body.data.toolCalls.map(c => [c.id, c]));
      assert.equal(byId.w1.ok, true, JSON.stringify(byId.w1));
      assert.equal(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'written by the agent');
      assert.deepEqual([byId.w2.decision, byId.w2.reason], ['denied', 'path_outside_workspace']);
      assert.ok(!fs.existsSync('/etc/netaclaw-escape.txt'));
      assert.deepEqual([byId.w3.decision, byId.w3.reason], ['denied', 'invalid_tool_arguments']);
      assert.deepEqual([byId.w4.decision, byId.w4.reason], ['denied', 'tool_not_offered']);
      const session = await sessionInfo(s, r.body.data.sessionId);
      assert.deepEqual(
        session.calls.map(c => [c.seq, c.name, c.reason]),
        [
          [1, 'write_file', byId.w1.reason],
          [2, 'write_file', 'path_outside_workspace'],
          [3, 'read_file', 'invalid_tool_arguments'],
          [4, 'bash', 'tool_not_offered'],
        ]
      );
      // a read-only session: write_file is not offered (its route cannot run), and a call of it anyway is denied by L0
      model.push({ toolCalls: [{ id: 'w5', name: 'write_file', arguments: { path: 'ro.txt', content: 'x' } }] }, { content: 'ok' });
      const ro = await chat(s, { agentId: agent.id, message: 'write ro.txt', sessionCwd: work });
      assert.ok(!model.offered(-2).includes('write_file'), model.offered(-2).join(','));
      assert.ok(model.offered(-2).includes('read_file'));
      assert.deepEqual([ro.body.data.toolCalls[0].decision, ro.body.data.toolCalls[0].reason], ['denied', 'tool_not_offered']);
      assert.ok(!fs.existsSync(path.join(work, 'ro.txt')));
    });
  });

  test('crew: delegate_* are offered to a master only (recorded tools list)', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const offeredTo = async agent => {
        const a = await addAgent(s, { name: `crew-${agent.crewRole}`, ...agent });
        model.push({ content: 'ok' });
        const r = await chat(s, { agentId: a.id, message: 'hello' });
        assert.equal(r.status, 200, r.text);
        return model.offered(-1);
      };
      const master = await offeredTo({ crewRole: 'master' });
      assert.ok(master.includes('delegate_task') && master.includes('delegate_parallel'), master.join(','));
      for (const crewRole of ['sub', null]) {
        const tools = await offeredTo({ crewRole });
        assert.ok(!tools.some(t => t.startsWith('delegate_')), `${crewRole}: ${tools.join(',')}`);
      }
    });
  });

  test('faults: model 500, timeout, malformed stream, unreachable → a clear error, the session stored and usable', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model, { NETACLAW_MODEL_TIMEOUT_MS: '1500' }) }, async s => {
      const agent = await addAgent(s, { name: 'faults', toolsets: ['planning'] });
      let sessionId = null;
      const turn = async (script, message) => {
        model.push(script);
        const r = await chat(s, { agentId: agent.id, message, ...(sessionId ? { sessionId } : {}) });
        return r;
      };
      const cases = [
        [{ status: 500, content: 'upstream exploded' }, 502, 'model_error', /answered HTTP 500: .*upstream exploded/],
        [{ stallMs: 4000, content: 'too late' }, 504, 'model_timeout', /did not answer within 1500 ms/],
        [{ chunks: ['one', 'two', 'three'], stallMs: 4000, stallAfterChunks: 2 }, 504, 'model_timeout', /sent nothing for 1500 ms/],
        [{ rawData: ['{"id":"x","choices":[{"index":0,"delta":{"content":"hi"}}]}', '{not json'] }, 502, 'model_error', /malformed answer/],
        [{ hangUp: true }, 502, 'model_error', /cannot reach the model service|malformed answer/],
      ];
      for (const [script, status, code, message] of cases) {
        const r = await turn(script, `message for ${code}`);
        assert.equal(r.status, status, r.text);
        assert.equal(r.body.error.code, code);
        assert.match(r.body.error.message, message);
        assert.equal(typeof r.body.error.sessionId, 'number');
        sessionId = sessionId ?? r.body.error.sessionId;
        assert.equal(r.body.error.sessionId, sessionId);
        // the next message in the same session works, and the model gets a valid history
        model.push({ content: 'recovered' });
        const next = await chat(s, { agentId: agent.id, sessionId, message: 'are you there?' });
        assert.equal(next.status, 200, next.text);
        assert.equal(next.body.data.reply, 'recovered');
        const sent = model.requests.at(-1).body.messages;
        assert.equal(sent[0].role, 'system');
        assert.ok(sent.every(m => ['system', 'user', 'assistant'].includes(m.role)));
        assert.equal(sent.at(-1).content, 'are you there?');
      }
      const info = await sessionInfo(s, sessionId);
      const roles = info.messages.map(m => m.role);
      assert.deepEqual(roles.filter(r => r === 'error').length, cases.length);
      assert.deepEqual(
        info.messages.filter(m => m.role === 'error').map(m => m.name),
        cases.map(c => c[2])
      );
      assert.deepEqual(
        info.messages.map(m => m.seq),
        info.messages.map((_, i) => i + 1)
      );

      // an unreachable service (nothing listens on the port)
      const dead = (await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'dead', baseUrl: 'http://127.0.0.1:9/v1', model: 'none' })).body.data;
      const a2 = await addAgent(s, { name: 'dead-end', modelChannelId: dead.id });
      const r = await chat(s, { agentId: a2.id, message: 'hello?' });
      assert.equal(r.status, 502, r.text);
      assert.match(r.body.error.message, /cannot reach the model service at http:\/\/127\.0\.0\.1:9\/v1/);
    });
  });

  test('bad tool-call JSON and non-object arguments are denied invalid_tool_arguments; the loop goes on', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'args', toolsets: ['base', 'planning'] });
      model.push(
        {
          toolCalls: [
            { id: 'm1', name: 'read_file', arguments: '{"path": "a.txt", ' },
            { id: 'm2', name: 'clarify', arguments: '["why?"]' },
          ],
        },
        { content: 'Sorry, my arguments were wrong.' }
      );
      const r = await chat(s, { agentId: agent.id, message: 'read a.txt', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      const [c1, c2] = r.body.data.toolCalls;
      assert.deepEqual([c1.decision, c1.reason, c1.ok], ['denied', 'invalid_tool_arguments', false]);
      assert.match(c1.detail, /not valid JSON/);
      assert.equal(c1.arguments, '{"path": "a.txt", ', 'the text the model sent is kept');
      assert.deepEqual([c2.decision, c2.reason], ['denied', 'invalid_tool_arguments']);
      assert.match(c2.detail, /expected an object, got an array/);
      const results = toolMessages(1);
      assert.deepEqual(
        results.map(m => m.tool_call_id),
        ['m1', 'm2']
      );
      assert.ok(results.every(m => m.content.startsWith('Tool call denied (invalid_tool_arguments)')));
      assert.equal(r.body.data.reply, 'Sorry, my arguments were wrong.');
    });
  });

  test('bad requests: 400/404 with a message, nothing stored; no channel says how to configure one', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(db.env, async s => {
      const agent = await addAgent(s, { name: 'lonely' });
      const none = await chat(s, { agentId: agent.id, message: 'hi' });
      assert.equal(none.status, 400, none.text);
      assert.equal(none.body.error.code, 'no_model_channel');
      assert.match(none.body.error.message, /NETACLAW_MODEL_BASE_URL.*\/admin\/netaclaw\/channel\/add/);
      const nonePreview = (await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id })).body.data;
      assert.ok(nonePreview.warnings.some(w => w.code === 'capability_fallback_text'));
      const events = await wsChat(s, { agentId: agent.id, message: 'hi' });
      assert.deepEqual(
        events.map(e => [e.type, e.code]),
        [['error', 'no_model_channel']]
      );

      await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'm', baseUrl: model.baseUrl, model: 'scripted-1' });
      const other = await addAgent(s, { name: 'other' });
      model.push({ content: 'first' });
      const workA = tmpDir();
      const notDir = path.join(workA, 'file.txt');
      fs.writeFileSync(notDir, 'x');
      const rootOnly = fs.mkdtempSync(path.join(workA, 'root-only-'));
      const readOnly = fs.mkdtempSync(path.join(workA, 'read-only-'));
      if (process.getuid() === 0) {
        fs.chownSync(rootOnly, 0, 0);
        fs.chmodSync(rootOnly, 0o700);
        fs.chownSync(readOnly, 0, 0);
        fs.chmodSync(readOnly, 0o755);
      }
      const ok = await chat(s, { agentId: agent.id, message: 'hi', sessionCwd: workA });
      assert.equal(ok.status, 200, ok.text);
      const sid = ok.body.data.sessionId;
      const cases = [
        [{ message: 'x' }, 400, /agentId is required/],
        [{ agentId: 'one', message: 'x' }, 400, /agentId must be a positive integer/],
        [{ agentId: agent.id }, 400, /message is required/],
        [{ agentId: agent.id, message: '   ' }, 400, /message must be a non-empty string/],
        [{ agentId: agent.id, message: 'x'.repeat(65537) }, 400, /message must be at most 65536 characters/],
        [{ agentId: agent.id, message: 'x', sessionCwd: 'relative' }, 400, /sessionCwd/],
        [{ agentId: agent.id, message: 'x', shellPermitted: 'yes' }, 400, /shellPermitted must be a boolean/],
        [{ agentId: 99999, message: 'x' }, 404, /no agent with id 99999/],
        [{ agentId: agent.id, sessionId: 99999, message: 'x' }, 404, /no session with id 99999/],
        [{ agentId: other.id, sessionId: sid, message: 'x' }, 400, new RegExp(`session ${sid} belongs to agent ${agent.id}`)],
        [{ agentId: agent.id, sessionId: sid, message: 'x', sessionCwd: '/b' }, 400, /other sessionCwd: a session's fields are fixed/],
        // a new session's working directory must be one its sandboxes can use: the folder, the reason, the remedy
        [{ agentId: agent.id, message: 'x', sessionCwd: path.join(workA, 'nowhere') }, 400, /^sessionCwd: the working directory ".*nowhere" does not exist/],
        [{ agentId: agent.id, message: 'x', sessionCwd: notDir }, 400, /^sessionCwd: the working directory ".*file\.txt" is not a directory/],
      ];
      if (process.getuid() === 0) {
        // the backend is root, its sandboxes run as netaclaw-sandbox: a folder only root may enter, one only root may write
        cases.push(
          [{ agentId: agent.id, message: 'x', sessionCwd: rootOnly }, 400, /cannot be read by user "netaclaw-sandbox".*give it to user "netaclaw-sandbox"/],
          [
            { agentId: agent.id, message: 'x', sessionCwd: readOnly, writePermitted: true },
            400,
            /cannot be written by user "netaclaw-sandbox".*give it to user "netaclaw-sandbox"/,
          ]
        );
      }
      const before = await db.sql('SELECT COUNT(*) AS n FROM netaclaw_message');
      const sessionsBefore = await db.sql('SELECT COUNT(*) AS n FROM netaclaw_session');
      for (const [body, status, message] of cases) {
        const r = await chat(s, body);
        assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 100)} → ${r.text}`);
        assert.match(r.body.error.message, message);
        const ev = await wsChat(s, body);
        assert.equal(ev.length, 1);
        assert.equal(ev[0].type, 'error');
        assert.equal(ev[0].code, r.body.error.code, 'the WebSocket gives the same error');
        assert.equal(ev[0].message, r.body.error.message);
      }
      assert.deepEqual(await db.sql('SELECT COUNT(*) AS n FROM netaclaw_message'), before, 'nothing stored');
      assert.deepEqual(await db.sql('SELECT COUNT(*) AS n FROM netaclaw_session'), sessionsBefore, 'no session stored');
      assert.equal(model.requests.length, 1, 'the model was not called');
      // the same folder given to the sandbox's user is accepted (read only: a session that does not write)
      model.push({ content: 'readable now' });
      const readable = await chat(s, { agentId: agent.id, message: 'x', sessionCwd: readOnly });
      assert.equal(readable.status, 200, readable.text);
      // the same session fields repeated are fine
      model.push({ content: 'second' });
      const again = await chat(s, { agentId: agent.id, sessionId: sid, message: 'again', sessionCwd: workA, workspaceRoots: [] });
      assert.equal(again.status, 200, again.text);
      // an agent whose channel vanished behind the API's back
      await db.sql('UPDATE netaclaw_agent SET modelChannelId = 424242 WHERE id = ?', [other.id]);
      const gone = await chat(s, { agentId: other.id, message: 'x' });
      assert.equal(gone.status, 404, gone.text);
      assert.match(gone.body.error.message, /model channel 424242 of agent \d+ does not exist/);
      // malformed WebSocket messages get an error and the connection stays usable
      const c = openWs(s);
      await c.opened;
      for (const bad of ['not json', '[1,2]', JSON.stringify({ type: 'sing' })]) {
        const e = c.next(x => x.type === 'error');
        c.send(bad);
        assert.equal((await e).code, 'invalid_input');
      }
      model.push({ content: 'still here' });
      const done = c.next(x => x.type === 'done');
      c.send({ type: 'chat', agentId: agent.id, message: 'ping' });
      assert.equal((await done).reply, 'still here');
      await c.close();
    });
  });

  test('the gateway needs the token: REST header; WebSocket header or ?token=', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'auth' });
      for (const token of [null, 'wrong']) {
        const r = await chat(s, { agentId: agent.id, message: 'hi' }, { token });
        assert.equal(r.status, 401, r.text);
        assert.equal(r.body.error.code, 'unauthorized');
        for (const query of [false, true]) {
          const c = openWs(s, { token, query });
          await assert.rejects(c.opened, e => e.status === 401 && JSON.parse(e.body).error.code === 'unauthorized');
        }
      }
      const wrongPath = openWs(s, { path: '/ws/other' });
      await assert.rejects(wrongPath.opened, e => e.status === 404);
      assert.equal(model.requests.length, 0);
      model.push({ content: 'via query token' });
      const events = await wsChat(s, { agentId: agent.id, message: 'hi' }, { token: TOKEN, query: true });
      assert.equal(events.at(-1).reply, 'via query token');
      // no key on the channel → no Authorization header to the model; a key → Bearer
      assert.equal(model.requests.at(-1).headers.authorization, undefined);
    });
    await withServer({ ...db.env, ...modelEnv(model, { NETACLAW_MODEL_API_KEY: 'sk-scripted-key-0001' }) }, async s => {
      const agent = (await call(s, 'POST', '/admin/netaclaw/agent/page', {})).body.data.list[0];
      model.push({ content: 'keyed' });
      assert.equal((await chat(s, { agentId: agent.id, message: 'hi' })).status, 200);
      assert.equal(model.requests.at(-1).headers.authorization, 'Bearer sk-scripted-key-0001');
    });
  });

  test('cancel: a WebSocket cancel or a closed REST request stops the model stream; the session goes on', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'cancel' });
      model.push({ chunks: ['partial ', 'answer ', 'never ends'], stallMs: 20000, stallAfterChunks: 2 });
      const c = openWs(s);
      await c.opened;
      const firstDelta = c.next(e => e.type === 'delta');
      c.send({ type: 'chat', agentId: agent.id, message: 'write a long essay' });
      const d = await firstDelta;
      // a second chat on the same connection while one runs is refused
      const busy = c.next(e => e.type === 'error');
      c.send({ type: 'chat', agentId: agent.id, message: 'another' });
      assert.equal((await busy).code, 'busy');
      // the same session over REST meanwhile: refused too
      const rest = await chat(s, { agentId: agent.id, sessionId: d.sessionId, message: 'me too' });
      assert.equal(rest.status, 409, rest.text);
      assert.equal(rest.body.error.code, 'session_busy');
      const end = c.next(e => e.type === 'error');
      c.send({ type: 'cancel' });
      const e = await end;
      assert.equal(e.code, 'cancelled');
      assert.equal(e.sessionId, d.sessionId);
      assert.equal(await model.aborted(), true, 'the model stream was aborted');
      await c.close();
      model.push({ content: 'fresh start' });
      const next = await chat(s, { agentId: agent.id, sessionId: d.sessionId, message: 'short answer please' });
      assert.equal(next.status, 200, next.text);
      const info = await sessionInfo(s, d.sessionId);
      assert.deepEqual(
        info.messages.map(m => m.role),
        ['user', 'error', 'user', 'assistant']
      );
      assert.equal(info.messages[1].name, 'cancelled');

      // REST: the client goes away → the model request is aborted
      model.push({ chunks: ['a', 'b', 'c'], stallMs: 20000, stallAfterChunks: 2 });
      const before = model.requests.length;
      const ac = new AbortController();
      const pending = fetch(`${s.url}/api/netaclaw/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: agent.id, sessionId: d.sessionId, message: 'long again' }),
        signal: ac.signal,
      }).catch(err => err);
      while (model.requests.length === before) await new Promise(r => setTimeout(r, 50));
      ac.abort();
      await pending;
      const deadline = Date.now() + 10000;
      let last;
      while (Date.now() < deadline) {
        last = await sessionInfo(s, d.sessionId);
        if (last.messages.at(-1).role === 'error') break;
        await new Promise(r => setTimeout(r, 100));
      }
      assert.equal(last.messages.at(-1).name, 'cancelled');
      assert.equal(await model.aborted(), true, 'the stalled model request was aborted');
    });
  });

  test('limits: a long reply is cut, a long session is bounded, the step limit stops the loop', async () => {
    model.reset();
    const db = await backend.fresh();
    const env = { ...db.env, ...modelEnv(model, { NETACLAW_MAX_REPLY_CHARS: '5000', NETACLAW_HISTORY_CHARS: '4000', NETACLAW_MAX_STEPS: '3' }) };
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'limits', toolsets: ['planning'] });
      model.push({ chunks: Array.from({ length: 50 }, () => 'y'.repeat(2000)) });
      const long = await chat(s, { agentId: agent.id, message: 'talk' });
      assert.equal(long.status, 200, long.text);
      assert.equal(long.body.data.reply.length, 5000);
      assert.equal(long.body.data.stopReason, 'length');
      const stored = (await sessionInfo(s, long.body.data.sessionId)).messages.at(-1);
      assert.equal(stored.content.length, 5000);

      // a long session: earlier turns are dropped oldest first; the request stays within the budget
      let sessionId = null;
      for (let i = 1; i <= 6; i++) {
        model.push({ content: `answer ${i} ` + 'a'.repeat(300) });
        const r = await chat(s, { agentId: agent.id, message: `question ${i} ` + 'q'.repeat(600), ...(sessionId ? { sessionId } : {}) });
        assert.equal(r.status, 200, r.text);
        sessionId = r.body.data.sessionId;
      }
      const sent = model.requests.at(-1).body.messages;
      const chars = sent.reduce((n, m) => n + (m.content ?? '').length, 0);
      assert.ok(chars <= 4000, `request of ${chars} characters`);
      assert.equal(sent[0].role, 'system');
      assert.equal(sent[1].role, 'user', 'history starts with a whole turn');
      assert.ok(sent.at(-1).content.startsWith('question 6 '));
      assert.ok(!sent.some(m => (m.content ?? '').startsWith('question 1 ')), 'the oldest turn was dropped');
      assert.ok(
        sent.some(m => (m.content ?? '').startsWith('answer 5 ')),
        'recent turns kept'
      );

      // step limit: a model that always calls a tool is stopped after NETACLAW_MAX_STEPS calls
      model.reset();
      for (let i = 0; i < 5; i++) model.push({ content: `step ${i + 1}`, toolCalls: [{ name: 'no_such_tool', arguments: {} }] });
      const looping = await chat(s, { agentId: agent.id, message: 'loop' });
      assert.equal(looping.status, 200, looping.text);
      assert.equal(model.requests.length, 3);
      assert.equal(looping.body.data.stopReason, 'step_limit');
      assert.equal(looping.body.data.toolCalls.length, 3);
      assert.equal(looping.body.data.reply, 'step 3');
    });
  });
}

runOnEveryBackend(defineTests);
