'use strict';
/**
 * Secrets at rest (src/config/secrets.ts, src/config/datafiles.ts): the data folder is 0700 and the backend's files in
 * it 0600 (an older folder is corrected at start); the channels' API keys and the MCP servers' env values
 * are encrypted in the database under a key kept outside the data folder, never sent back by the API,
 * still used (the model gets the key); an older plain row is encrypted at the next start (once); a missing
 * or wrong key stops the start with a sentence and changes nothing. SQLite and MariaDB.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, withServer, call, SECRET_KEY } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { startModel } = require('./support/model');
const { plainSecret, CHANNEL_API_KEY, MCP_ENV } = require('./support/secrets');

const API_KEY = 'sk-live-PLAINTEXT-channel-key-0123456789abcdef';
const MCP_VALUE = 'mcp-PLAINTEXT-token-9876543210fedcba';
const OTHER_KEY = 'ab'.repeat(32);

function ok(r, what) {
  assert.equal(r.status, 200, `${what}: ${r.text}`);
  return r.body.data;
}

const mode = p => fs.statSync(p).mode & 0o777;

/** Every answer a client can get about channels and MCP servers, as text. */
async function everyAnswer(s, channelId, mcpId) {
  const texts = [];
  const get = async (method, p, body) => {
    const r = await call(s, method, p, body);
    assert.equal(r.status, 200, `${method} ${p}: ${r.text}`);
    texts.push(r.text);
  };
  await get('POST', '/admin/netaclaw/channel/page', {});
  await get('GET', `/admin/netaclaw/channel/info?id=${channelId}`);
  await get('POST', '/admin/netaclaw/channel/update', { id: channelId, model: 'model-b' });
  await get('POST', '/admin/netaclaw/mcp/page', {});
  await get('GET', `/admin/netaclaw/mcp/info?id=${mcpId}`);
  await get('POST', '/admin/netaclaw/mcp/update', { id: mcpId, env: { TOKEN: null, MODE: 'b' } });
  await get('POST', '/admin/netaclaw/mcp/refresh', {});
  return texts;
}

/** The rows as stored (no decryption). */
async function storedRows(db) {
  const channels = await db.sql('SELECT id, apiKey FROM netaclaw_model_channel ORDER BY id');
  const servers = (await db.sql('SELECT id, env FROM netaclaw_mcp_server ORDER BY id')).map(r => ({
    id: r.id,
    env: typeof r.env === 'string' ? JSON.parse(r.env) : r.env,
  }));
  return { channels, servers };
}

function defineTests(backend) {
  test('API keys and MCP env values: encrypted in the database, never in an answer, still used', async () => {
    const db = await backend.fresh();
    const model = await startModel();
    try {
      await withServer(db.env, async s => {
        const channel = ok(
          await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'c', baseUrl: model.baseUrl, model: 'model-a', apiKey: API_KEY }),
          'add channel'
        );
        assert.equal(channel.hasApiKey, true);
        assert.ok(!JSON.stringify(channel).includes(API_KEY));
        const server = ok(
          await call(s, 'POST', '/admin/netaclaw/mcp/add', {
            name: 'm',
            transport: 'stdio',
            command: '/bin/true',
            env: { TOKEN: MCP_VALUE, MODE: 'a' },
            enabled: false,
          }),
          'add mcp'
        );
        assert.ok(!JSON.stringify(server).includes(MCP_VALUE));
        for (const text of await everyAnswer(s, channel.id, server.id)) {
          assert.ok(!text.includes(API_KEY) && !text.includes(MCP_VALUE), text);
        }
        // the rows hold neither value, as read straight from the database
        const { channels, servers } = await storedRows(db);
        assert.equal(channels.length, 1);
        assert.match(channels[0].apiKey, /^enc:v1:[A-Za-z0-9_-]{8}:/);
        assert.ok(!JSON.stringify({ channels, servers }).includes(API_KEY) && !JSON.stringify({ channels, servers }).includes(MCP_VALUE));
        assert.deepEqual(Object.keys(servers[0].env), ['TOKEN', 'MODE'], 'the names stay readable');
        assert.equal(plainSecret(servers[0].env.TOKEN, MCP_ENV), MCP_VALUE, 'kept by the update (null: keep)');
        assert.equal(plainSecret(servers[0].env.MODE, MCP_ENV), 'b');
        assert.equal(plainSecret(channels[0].apiKey, CHANNEL_API_KEY), API_KEY);
        // the longest key (600 bytes in UTF-8, here 150 four-byte characters) fits its column once encrypted
        const longest = '🔑'.repeat(150);
        const wide = ok(
          await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'wide', baseUrl: model.baseUrl, model: 'm', apiKey: longest }),
          'add the longest key'
        );
        const [{ apiKey: wideStored }] = await db.sql('SELECT apiKey FROM netaclaw_model_channel WHERE id = ?', [wide.id]);
        assert.ok(wideStored.length <= 1000, String(wideStored.length));
        assert.equal(plainSecret(wideStored, CHANNEL_API_KEY), longest);
        // a value moved to another column does not decrypt there (the column is bound to the value)
        assert.throws(() => plainSecret(channels[0].apiKey, MCP_ENV), /does not decrypt/);

        // the model still gets the key: a chat turn sends it as the bearer
        const agent = ok(await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'a', modelChannelId: channel.id }), 'agent');
        model.push({ content: 'hi' });
        ok(await call(s, 'POST', '/api/netaclaw/chat', { agentId: agent.id, message: 'hello' }), 'chat');
        assert.equal(model.requests.at(-1).headers.authorization, `Bearer ${API_KEY}`);
      });
      if (backend.name === 'sqlite') {
        // the SQLite file (and its -wal, checkpointed at the stop) hold no byte of either value
        const dir = path.dirname(db.env.DB_PATH);
        for (const f of fs.readdirSync(dir).filter(f => f.startsWith('netaclaw.sqlite'))) {
          const bytes = fs.readFileSync(path.join(dir, f));
          assert.equal(bytes.indexOf(API_KEY), -1, f);
          assert.equal(bytes.indexOf(MCP_VALUE), -1, f);
        }
      }
    } finally {
      await model.close();
    }
  });

  test('rows of an earlier release in plain text are encrypted at the next start, once; nothing else changes', async () => {
    const db = await backend.fresh();
    await withServer(db.env, async () => {}); // the schema
    await db.sql(
      "INSERT INTO netaclaw_model_channel (name, baseUrl, apiKey, model, capability, isDefault, createTime, updateTime) VALUES ('old', 'http://127.0.0.1:9/v1', ?, 'm', 'text', 1, '2025-01-02 03:04:05', '2025-01-02 03:04:05')",
      [API_KEY]
    );
    await db.sql(
      "INSERT INTO netaclaw_mcp_server (name, transport, command, env, enabled, createTime, updateTime) VALUES ('old', 'stdio', '/bin/true', ?, 0, '2025-01-02 03:04:05', '2025-01-02 03:04:05')",
      [JSON.stringify({ TOKEN: MCP_VALUE, EMPTY: '' })]
    );
    const [before] = await db.sql('SELECT * FROM netaclaw_model_channel');
    await withServer(db.env, async s => {
      assert.match(s.log(), /secrets at rest: AES-256-GCM, key \S+ \(from NETACLAW_SECRET_KEY\); 3 stored value\(s\) encrypted now/);
      const c = ok(await call(s, 'GET', '/admin/netaclaw/channel/info?id=1'), 'info');
      assert.equal(c.hasApiKey, true);
      assert.equal(c.apiKeyMasked, 'sk-…cdef');
      const m = ok(await call(s, 'GET', '/admin/netaclaw/mcp/info?id=1'), 'info');
      assert.deepEqual(m.env, { TOKEN: 'mcp…dcba', EMPTY: '' });
    });
    const first = await storedRows(db);
    assert.match(first.channels[0].apiKey, /^enc:v1:/);
    assert.equal(plainSecret(first.channels[0].apiKey, CHANNEL_API_KEY), API_KEY);
    assert.equal(plainSecret(first.servers[0].env.TOKEN, MCP_ENV), MCP_VALUE);
    assert.equal(plainSecret(first.servers[0].env.EMPTY, MCP_ENV), '');
    const [after] = await db.sql('SELECT * FROM netaclaw_model_channel');
    assert.deepEqual({ ...after, apiKey: null }, { ...before, apiKey: null }, 'the rest of the row, its updateTime included, as it was');
    // the next start finds nothing to do and leaves the stored values as they are
    await withServer(db.env, async s => {
      assert.doesNotMatch(s.log(), /encrypted now/);
      assert.match(s.log(), /secrets at rest: AES-256-GCM/);
    });
    assert.deepEqual(await storedRows(db), first);
  });

  test('a wrong or missing key stops the start with a sentence; nothing is changed; the right key starts again', async () => {
    const db = await backend.fresh();
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-key-'));
    try {
      await withServer(db.env, async s => {
        ok(await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'c', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: API_KEY }), 'add');
      });
      // a plain row beside the encrypted one: must not be encrypted under a wrong key either
      await db.sql(
        "INSERT INTO netaclaw_model_channel (name, baseUrl, apiKey, model, capability, isDefault, createTime, updateTime) VALUES ('plain', 'http://127.0.0.1:9/v1', 'sk-plain-0123456789', 'm', 'text', 0, '2025-01-02 03:04:05', '2025-01-02 03:04:05')"
      );
      const rows = await storedRows(db);
      const wrong = await startServer({ ...db.env, NETACLAW_SECRET_KEY: OTHER_KEY }, { expectExit: true });
      assert.notEqual(wrong.exitCode, 0);
      assert.match(
        wrong.log(),
        /start FAILED: secrets at rest: netaclaw_model_channel\.apiKey: a stored secret was encrypted under the key with id \S+, the key loaded has id \S+: start with the key that encrypted it/
      );
      assert.ok(!wrong.log().includes(API_KEY));
      assert.deepEqual(await storedRows(db), rows, 'nothing written');
      // no key at all (no variable, no key file): refused, and no new key file made in its place
      const keyFile = path.join(keyDir, 'conf', 'secret.key');
      const missing = await startServer({ ...db.env, NETACLAW_SECRET_KEY: undefined, NETACLAW_SECRET_KEY_FILE: keyFile }, { expectExit: true });
      assert.notEqual(missing.exitCode, 0);
      assert.match(
        missing.log(),
        /the database holds secrets encrypted under a key, but there is no key: neither NETACLAW_SECRET_KEY nor the key file \S+secret\.key\. Restore the key file/
      );
      assert.equal(fs.existsSync(keyFile), false);
      // a malformed key
      const bad = await startServer({ ...db.env, NETACLAW_SECRET_KEY: 'too-short' }, { expectExit: true });
      assert.match(bad.log(), /NETACLAW_SECRET_KEY must be 32 bytes written as 64 hex digits or in base64/);
      assert.deepEqual(await storedRows(db), rows, 'nothing written');
      // the right key, given as a key file this time: starts, reads, encrypts the plain row
      fs.mkdirSync(path.dirname(keyFile), { recursive: true });
      fs.writeFileSync(keyFile, SECRET_KEY + '\n', { mode: 0o644 });
      await withServer({ ...db.env, NETACLAW_SECRET_KEY: undefined, NETACLAW_SECRET_KEY_FILE: keyFile }, async s => {
        assert.match(s.log(), /1 stored value\(s\) encrypted now/);
        assert.equal(ok(await call(s, 'GET', '/admin/netaclaw/channel/info?id=1'), 'info').hasApiKey, true);
      });
      assert.equal(mode(keyFile), 0o600, 'the key file made private');
      const now = await storedRows(db);
      assert.equal(plainSecret(now.channels[1].apiKey, CHANNEL_API_KEY), 'sk-plain-0123456789');
    } finally {
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });
}

runOnEveryBackend(defineTests);

test('the key file: made 0600 (its folder 0700) outside the data folder at the first start, read after; one inside the data folder is refused; a workspace root holding it is refused', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-keyfile-'));
  try {
    const dataDir = path.join(root, 'data');
    const home = path.join(root, 'home');
    fs.mkdirSync(home);
    // no NETACLAW_SECRET_KEY(_FILE): the default place under XDG_CONFIG_HOME
    const cfg = path.join(root, 'cfg');
    const env = { DB_TYPE: 'sqlite', DATA_DIR: dataDir, HOME: home, XDG_CONFIG_HOME: cfg, NETACLAW_SECRET_KEY: undefined };
    const keyFile = path.join(cfg, 'netaclaw', 'secret.key');
    await withServer(env, async s => {
      assert.match(s.log(), new RegExp(`secrets at rest: AES-256-GCM, key \\S+ \\(created in ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
      ok(await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'c', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: API_KEY }), 'add');
      // a workspace root holding the key file is refused like the data folder
      for (const r of [cfg, path.dirname(keyFile)]) {
        const refused = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'x' }, sessionCwd: r });
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.error.code, 'root_contains_backend_state');
        assert.match(refused.body.error.message, /secret key file/);
      }
    });
    assert.equal(mode(keyFile), 0o600);
    assert.equal(mode(path.dirname(keyFile)), 0o700);
    assert.match(fs.readFileSync(keyFile, 'utf8'), /^[0-9a-f]{64}\n$/);
    const Database = require('better-sqlite3');
    const read = () => {
      const d = new Database(path.join(dataDir, 'netaclaw.sqlite'), { readonly: true });
      try {
        return d.prepare('SELECT apiKey FROM netaclaw_model_channel').get().apiKey;
      } finally {
        d.close();
      }
    };
    const apiKeyStored = read();
    assert.equal(plainSecret(apiKeyStored, CHANNEL_API_KEY, fs.readFileSync(keyFile, 'utf8')), API_KEY);
    // the second start reads the same file
    await withServer(env, async s => {
      assert.match(s.log(), /\(from \S+secret\.key\)/);
      assert.equal(ok(await call(s, 'GET', '/admin/netaclaw/channel/info?id=1'), 'info').apiKeyMasked, 'sk-…cdef');
    });
    // a key file inside the data folder is refused
    const inside = await startServer({ ...env, NETACLAW_SECRET_KEY_FILE: path.join(dataDir, 'secret.key') }, { expectExit: true });
    assert.match(inside.log(), /the secret key file \S+ is inside the data folder \S+: keep it elsewhere/);
    assert.equal(fs.existsSync(path.join(dataDir, 'secret.key')), false);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the data folder is 0700, the SQLite file with its -wal and -shm and the admin token file 0600; an older 0755/0644 folder is corrected', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-modes-'));
  try {
    const dataDir = path.join(root, 'data');
    // as an earlier release left it: a folder open to all, files readable by all
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'admin-token'), 'old-admin-token-0123456789\n', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'admin-token'), 0o644);
    const env = { DB_TYPE: 'sqlite', DATA_DIR: dataDir, ADMIN_TOKEN: undefined };
    await withServer(env, async s => {
      assert.match(s.log(), /data folder made private: data 700, admin-token 600/);
      // writes, so that the -wal and -shm exist
      ok(
        await call(
          s,
          'POST',
          '/admin/netaclaw/channel/add',
          { name: 'c', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
          { token: 'old-admin-token-0123456789' }
        ),
        'add'
      );
      assert.equal(mode(dataDir), 0o700);
      for (const f of ['admin-token', 'netaclaw.sqlite', 'netaclaw.sqlite-wal', 'netaclaw.sqlite-shm']) {
        assert.ok(fs.existsSync(path.join(dataDir, f)), f);
        assert.equal(mode(path.join(dataDir, f)).toString(8), '600', f);
      }
    });
    // a fresh data folder, the admin token file created by the backend
    const fresh = path.join(root, 'fresh');
    await withServer({ DB_TYPE: 'sqlite', DATA_DIR: fresh, ADMIN_TOKEN: undefined }, async () => {
      assert.equal(mode(fresh), 0o700);
      for (const f of ['admin-token', 'netaclaw.sqlite', 'netaclaw.sqlite-wal', 'netaclaw.sqlite-shm'])
        assert.equal(mode(path.join(fresh, f)).toString(8), '600', f);
    });
    // and the SQLite file left 0644 by an earlier release, with its -wal
    fs.chmodSync(path.join(fresh, 'netaclaw.sqlite'), 0o644);
    fs.chmodSync(fresh, 0o755);
    await withServer({ DB_TYPE: 'sqlite', DATA_DIR: fresh, ADMIN_TOKEN: undefined }, async s => {
      assert.match(s.log(), /data folder made private: fresh 700, netaclaw\.sqlite 600/);
      assert.equal(mode(path.join(fresh, 'netaclaw.sqlite')), 0o600);
      assert.equal(mode(fresh), 0o700);
    });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
