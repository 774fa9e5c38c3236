'use strict';
/**
 * The schema of MySQL/MariaDB comes from the migrations (src/db/migration/), run at start: a fresh database
 * gets every table; a database made by the schema sync of the release before (and of older ones) is
 * upgraded without losing a row; afterwards the schema is exactly what the entities declare (TypeORM's
 * schema log, the query list of `schema:log` and of `migration:generate`, is empty).
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { withServer, call, childEnv, BACKEND_ROOT } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const { plainSecret, CHANNEL_API_KEY } = require('./support/secrets');

/** Every migration, in order (a fresh or a pre-migration database runs them all). */
const ALL = require('../dist/db/migration').MIGRATIONS.map(m => m.name);
const RAN_ALL = new RegExp(`schema: ran ${ALL.length} migration\\(s\\): ${ALL.join(', ')}\\n`);
const TABLES = [
  'netaclaw_tool',
  'netaclaw_agent',
  'netaclaw_model_channel',
  'netaclaw_session',
  'netaclaw_message',
  'netaclaw_subagent_batch',
  'netaclaw_tool_call',
  'netaclaw_memory',
];

/**
 * What TypeORM would still change for the schema to equal the entities (the queries of its schema log),
 * asked by a fresh process through the backend's CLI data source (dist/db/cli-datasource.js).
 */
function schemaLog(env) {
  const script = `
    const ds = require('./dist/db/cli-datasource.js').default;
    ds.initialize()
      .then(async () => {
        const log = await ds.driver.createSchemaBuilder().log();
        process.stdout.write(JSON.stringify(log.upQueries.map(q => q.query)));
        await ds.destroy();
      })
      .catch(err => { console.error(err); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: BACKEND_ROOT, env: childEnv({ ...env, DB_TYPE: 'mariadb' }) });
    let out = '';
    let err = '';
    child.stdout.on('data', d => (out += d));
    child.stderr.on('data', d => (err += d));
    child.on('exit', code => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`schema log failed (${code}): ${err}`))));
  });
}

/** The statements of the fixture (the schema sync's DDL of the release before migrations). */
function fixtureStatements() {
  const text = fs.readFileSync(path.join(__dirname, 'fixtures', 'schema-before-migrations.sql'), 'utf8');
  return text
    .split('\n')
    .filter(l => !l.startsWith('--'))
    .join('\n')
    .split(/;\s*\n/)
    .map(s => s.trim())
    .filter(Boolean);
}

/** Every row of every table, as plain objects; `drop` leaves out the named columns (ones added since). */
async function dump(db, drop = []) {
  const out = {};
  for (const t of TABLES) {
    const rows = await db.sql(`SELECT * FROM \`${t}\` ORDER BY id`);
    out[t] = rows.map(r => Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k))));
  }
  return out;
}

/** One row in every table, as the release before would have stored them. */
async function seed(db) {
  await db.sql(
    "INSERT INTO netaclaw_tool (name, label, toolset, status, sort, version, extra) VALUES ('bash', 'kept label', 'terminal', 0, 7, 3, '{\"a\":1}')"
  );
  await db.sql(
    "INSERT INTO netaclaw_model_channel (name, baseUrl, apiKey, model, capability, isDefault) VALUES ('main', 'http://127.0.0.1:9/v1', 'sk-0123456789abcdef', 'm1', 'text', 1)"
  );
  await db.sql(
    "INSERT INTO netaclaw_agent (name, systemPrompt, memoryEnabled, skills, toolsets, tools, modelChannelId, version) VALUES ('old agent', 'be brief', 1, '[\"s1\"]', '[\"base\"]', '{\"disabled\":[\"grep\"]}', 1, 2)"
  );
  await db.sql(
    "INSERT INTO netaclaw_session (agentId, channelId, sessionCwd, workspaceRoots, shellPermitted, writePermitted, title) VALUES (1, 1, '/srv/w', '[]', 0, 1, 'hello')"
  );
  await db.sql("INSERT INTO netaclaw_message (sessionId, seq, role, content) VALUES (1, 1, 'user', 'hello'), (1, 2, 'assistant', 'hi')");
  await db.sql(
    "INSERT INTO netaclaw_subagent_batch (agentId, sessionId, crewRole, workspaceRoots, policy, routes, driver, status) VALUES (1, '1', 'sub', '[]', '{}', '[]', 'calls', 'completed')"
  );
  await db.sql(
    "INSERT INTO netaclaw_tool_call (batchId, seq, name, arguments, decision, ok, output, durationMs) VALUES (1, 1, 'read_file', '{\"path\":\"a\"}', 'worker-local', 1, 'text', 5)"
  );
  await db.sql("INSERT INTO netaclaw_memory (agentId, content) VALUES (1, 'remember this')");
}

for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describeWithBackend(`schema migrations · ${label}`, makeBackend, backend => {
    test('a fresh database gets its schema from the migrations, exactly what the entities declare', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        assert.match(s.log(), RAN_ALL);
        for (const t of TABLES) assert.match(s.log(), new RegExp(`schema baseline: created ${t}\\n`));
        assert.match(s.log(), /schema migration McpServer: created netaclaw_mcp_server\n/);
        assert.match(s.log(), /schema todo lists: created netaclaw_todo_list\n/);
        assert.match(s.log(), /schema escalations: created netaclaw_escalation\n/);
        assert.match(s.log(), /schema turn progress: created netaclaw_turn_progress\n/);
        assert.match(s.log(), /schema login sessions: created netaclaw_login_session\n/);
        assert.equal((await call(s, 'GET', '/health', undefined, { token: null })).status, 200);
      });
      assert.deepEqual(
        (await db.sql('SELECT name FROM netaclaw_migrations')).map(r => r.name),
        ALL
      );
      assert.deepEqual(await schemaLog(db.env), [], 'nothing left for the schema sync to do');
      // the next start runs nothing
      await withServer(db.env, async s => {
        assert.match(s.log(), /schema: up to date \(no migration to run\)/);
        assert.doesNotMatch(s.log(), /schema baseline:/);
      });
      // control: the check sees a difference
      await db.sql('ALTER TABLE netaclaw_session DROP COLUMN turnUntil');
      const diff = await schemaLog(db.env);
      assert.ok(
        diff.some(q => /ADD `turnUntil` bigint/.test(q)),
        JSON.stringify(diff)
      );
    });

    test('a database made by the schema sync before migrations is upgraded; every row kept', async () => {
      const db = await backend.fresh();
      for (const stmt of fixtureStatements()) await db.sql(stmt);
      await seed(db);
      const before = await dump(db);
      await withServer(db.env, async s => {
        assert.match(s.log(), RAN_ALL);
        assert.match(s.log(), /schema baseline: added netaclaw_session\.turnToken/);
        assert.match(s.log(), /schema baseline: added netaclaw_session\.turnUntil/);
        assert.match(s.log(), /schema baseline: added netaclaw_agent\.subagentTools/);
        assert.match(s.log(), /schema agents: added netaclaw_agent\.crewMembers/);
        assert.match(s.log(), /schema rules: created netaclaw_setting/);
        assert.match(s.log(), /schema rules: added netaclaw_agent\.rules/);
        assert.match(s.log(), /schema rules: added netaclaw_session\.approvals/);
        assert.match(s.log(), /schema approvals: added netaclaw_tool_call\.rule/);
        assert.match(s.log(), /schema calls and waits: added netaclaw_tool_call\.network/);
        assert.match(s.log(), /schema calls and waits: added netaclaw_approval\.waitUntil/);
        // comments rewritten since that release are brought up to date in place
        assert.match(s.log(), /schema baseline: changed netaclaw_tool_call\.decision to its comment/);
        assert.doesNotMatch(s.log(), /schema baseline: (created|left)/, 'every table was there, every column of its type');
        // the rows are the API's as before
        const bash = (await call(s, 'GET', '/admin/netaclaw/tool/info?name=bash')).body.data;
        assert.equal(bash.label, 'kept label');
        assert.equal(bash.sort, 7);
        const agent = (await call(s, 'GET', '/admin/netaclaw/agent/info?id=1')).body.data;
        assert.deepEqual([agent.name, agent.skills, agent.tools, agent.version], ['old agent', ['s1'], { disabled: ['grep'] }, 2]);
        const session = (await call(s, 'GET', '/admin/netaclaw/session/info?id=1')).body.data;
        assert.deepEqual(
          session.messages.map(m => m.content),
          ['hello', 'hi']
        );
        assert.ok(!('turnToken' in session), 'the turn claim is not part of the session row');
      });
      const after = await dump(db, ['turnToken', 'turnUntil', 'subagentTools', 'crewMembers', 'rules', 'approvals', 'rule', 'network', 'waitUntil']);
      // the columns added since are empty on the old rows (null: every tool for the sub-agents, no turn claimed, no rules)
      assert.deepEqual(await db.sql('SELECT subagentTools, crewMembers, rules FROM netaclaw_agent'), [{ subagentTools: null, crewMembers: null, rules: null }]);
      assert.deepEqual(await db.sql('SELECT rules, approvals FROM netaclaw_session'), [{ rules: null, approvals: null }]);
      assert.deepEqual(await db.sql('SELECT rule, network FROM netaclaw_tool_call'), [{ rule: null, network: null }]);
      // the catalog sync of the start added the other builtin tools and rewrote bash's mirror fields
      const oldBash = before.netaclaw_tool[0];
      const newBash = after.netaclaw_tool.find(r => r.name === 'bash');
      for (const k of ['id', 'label', 'status', 'sort', 'extra', 'createTime']) assert.deepEqual(newBash[k], oldBash[k], k);
      // the old channel's key, stored in plain text by that release, is now encrypted (src/config/secrets.ts)
      const [oldChannel] = before.netaclaw_model_channel;
      const [newChannel] = after.netaclaw_model_channel;
      assert.equal(oldChannel.apiKey, 'sk-0123456789abcdef');
      assert.match(newChannel.apiKey, /^enc:v1:/);
      assert.equal(plainSecret(newChannel.apiKey, CHANNEL_API_KEY), oldChannel.apiKey);
      assert.deepEqual({ ...newChannel, apiKey: null }, { ...oldChannel, apiKey: null }, 'the channel row otherwise as it was (its updateTime too)');
      for (const t of TABLES.filter(t => t !== 'netaclaw_tool' && t !== 'netaclaw_model_channel'))
        assert.deepEqual(after[t], before[t], `${t}: every row as it was`);
      assert.deepEqual(await schemaLog(db.env), [], 'the upgraded schema is what the entities declare');
    });

    test('an older schema (a table, a column, an index missing, a nullability changed since) is completed; a column of another length is left and reported', async () => {
      const db = await backend.fresh();
      for (const stmt of fixtureStatements()) await db.sql(stmt);
      await seed(db);
      await db.sql('ALTER TABLE netaclaw_agent DROP COLUMN version');
      await db.sql('ALTER TABLE netaclaw_agent DROP COLUMN modelChannelId');
      await db.sql("ALTER TABLE netaclaw_tool_call MODIFY `arguments` json NOT NULL COMMENT '参数 (至多 64 KiB)'");
      await db.sql('DROP INDEX `IDX_af9a50796c166fe887ed889996` ON netaclaw_subagent_batch');
      await db.sql('DROP TABLE netaclaw_memory');
      // a length the entity does not have: TypeORM would drop and add the column (its data lost)
      await db.sql("ALTER TABLE netaclaw_message MODIFY `role` varchar(30) NOT NULL COMMENT '角色'");
      await withServer(db.env, async s => {
        for (const step of [
          'added netaclaw_agent\\.version',
          'added netaclaw_agent\\.modelChannelId',
          'changed netaclaw_tool_call\\.arguments to NULL',
          'indexed netaclaw_subagent_batch \\(createTime\\)',
          'created netaclaw_memory',
          'left netaclaw_message\\.role as varchar\\(30\\) \\(the entity says varchar\\(20\\); change it by hand\\)',
        ]) {
          assert.match(s.log(), new RegExp(`schema baseline: ${step}`));
        }
        const agent = (await call(s, 'GET', '/admin/netaclaw/agent/info?id=1')).body.data;
        assert.deepEqual([agent.name, agent.skills, agent.version, agent.modelChannelId], ['old agent', ['s1'], 1, null]);
      });
      const calls = await db.sql('SELECT name, arguments FROM netaclaw_tool_call');
      assert.deepEqual(
        calls.map(c => [c.name, JSON.parse(c.arguments)]),
        [['read_file', { path: 'a' }]]
      );
      assert.deepEqual(
        (await db.sql('SELECT role FROM netaclaw_message ORDER BY id')).map(m => m.role),
        ['user', 'assistant']
      );
      // what is left for the operator is that column, and only it
      const diff = await schemaLog(db.env);
      assert.ok(diff.length > 0 && diff.every(q => /`role`/.test(q)), JSON.stringify(diff));
    });
  });
}
