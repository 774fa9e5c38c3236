'use strict';
/**
 * Model channels: the admin API (key never sent back whole, exactly one default), the default channel
 * from NETACLAW_MODEL_* at start, and the capability an agent's channel gives its resolution and prompt.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { startServer, withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { plainSecret, CHANNEL_API_KEY } = require('./support/secrets');

const KEY_A = 'sk-test-aaaaaaaaaaaaaaaaaaaa3f9a';
const KEY_B = 'sk-test-bbbbbbbbbbbbbbbbbbbb77c1';

async function ok(s, method, p, body) {
  const r = await call(s, method, p, body);
  assert.equal(r.status, 200, `${method} ${p} → ${r.text}`);
  return r;
}

function defineTests(backend) {
  test('channels: add, info, page, update, delete; the key is never sent back whole', async () => {
    const db = await backend.fresh();
    await withServer(db.env, async s => {
      const texts = [];
      const seen = async (method, p, body) => {
        const r = await ok(s, method, p, body);
        texts.push(r.text);
        return r.body.data;
      };
      const a = await seen('POST', '/admin/netaclaw/channel/add', {
        name: 'openai',
        baseUrl: 'https://api.openai.com/v1/',
        apiKey: KEY_A,
        model: 'gpt-4o-mini',
      });
      assert.equal(a.baseUrl, 'https://api.openai.com/v1', 'trailing slash dropped');
      assert.equal(a.capability, 'text', 'capability defaults to text');
      assert.equal(a.isDefault, true, 'the first channel becomes the default');
      assert.equal(a.hasApiKey, true);
      assert.equal(a.apiKeyMasked, 'sk-…3f9a');
      assert.ok(!('apiKey' in a));

      const b = await seen('POST', '/admin/netaclaw/channel/add', {
        name: 'qwen-vl',
        baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
        apiKey: KEY_B,
        model: 'qwen-vl-max',
        capability: 'vision',
        isDefault: true,
      });
      assert.equal(b.isDefault, true);
      assert.equal((await seen('GET', `/admin/netaclaw/channel/info?id=${a.id}`)).isDefault, false, 'one default');

      // an update without apiKey keeps the key; other fields move
      const up = await seen('POST', '/admin/netaclaw/channel/update', { id: a.id, model: 'gpt-4o' });
      assert.equal(up.model, 'gpt-4o');
      assert.equal(up.apiKeyMasked, 'sk-…3f9a');
      // stored encrypted (src/config/secrets.ts): not the key, but the key under the backend's secret key
      const [{ apiKey: storedA }] = await db.sql('SELECT apiKey FROM netaclaw_model_channel WHERE id = ?', [a.id]);
      assert.match(storedA, /^enc:v1:/);
      assert.equal(plainSecret(storedA, CHANNEL_API_KEY), KEY_A);
      // null removes it; a short key is not shown at all
      assert.equal((await seen('POST', '/admin/netaclaw/channel/update', { id: a.id, apiKey: null })).hasApiKey, false);
      const short = await seen('POST', '/admin/netaclaw/channel/update', { id: a.id, apiKey: 'abc123' });
      assert.equal(short.apiKeyMasked, '…');
      await seen('POST', '/admin/netaclaw/channel/update', { id: a.id, apiKey: KEY_A });

      const page = await seen('POST', '/admin/netaclaw/channel/page', {});
      assert.equal(page.pagination.total, 2);
      assert.deepEqual(
        page.list.map(c => c.name),
        ['openai', 'qwen-vl']
      );
      for (const text of texts) {
        assert.ok(!text.includes(KEY_A) && !text.includes(KEY_B) && !text.includes('abc123'), text);
      }

      // bad input: 400 with a message, nothing written
      const before = await db.sql('SELECT * FROM netaclaw_model_channel ORDER BY id');
      for (const body of [
        { baseUrl: 'http://x/v1', model: 'm' },
        { name: 'n', model: 'm' },
        { name: 'n', baseUrl: 'http://x/v1' },
        { name: 'n', baseUrl: 'not a url', model: 'm' },
        { name: 'n', baseUrl: 'ftp://x/v1', model: 'm' },
        { name: 'n', baseUrl: 'http://x/v1', model: 'm', capability: 'smell' },
        { name: 'n', baseUrl: 'http://x/v1', model: 'm', capability: 3 },
        { name: 'openai', baseUrl: 'http://x/v1', model: 'm' },
        { name: ' ', baseUrl: 'http://x/v1', model: 'm' },
        { name: 'n', baseUrl: 'http://x/v1', model: 'm', apiKey: 7 },
      ]) {
        const r = await call(s, 'POST', '/admin/netaclaw/channel/add', body);
        assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_input');
      }
      const cap = await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'n', baseUrl: 'http://x/v1', model: 'm', capability: 'smell' });
      assert.match(cap.body.error.message, /^capability: .*text, vision, multimodal/);
      const unset = await call(s, 'POST', '/admin/netaclaw/channel/update', { id: b.id, isDefault: false });
      assert.equal(unset.status, 400, unset.text);
      assert.match(unset.body.error.message, /make another channel the default/);
      assert.deepEqual(await db.sql('SELECT * FROM netaclaw_model_channel ORDER BY id'), before);
      for (const [method, p, body] of [
        ['GET', '/admin/netaclaw/channel/info?id=999'],
        ['POST', '/admin/netaclaw/channel/update', { id: 999, model: 'x' }],
        ['POST', '/admin/netaclaw/channel/delete', { id: 999 }],
      ]) {
        const r = await call(s, method, p, body);
        assert.equal(r.status, 404, r.text);
      }

      // an agent names a channel: it must exist, and the channel cannot be deleted under it
      const bad = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'x', modelChannelId: 999 });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.body.error.message, /modelChannelId: no model channel with id 999/);
      const agent = await seen('POST', '/admin/netaclaw/agent/add', { name: 'uses-openai', modelChannelId: a.id });
      assert.equal(agent.modelChannelId, a.id);
      const inUse = await call(s, 'POST', '/admin/netaclaw/channel/delete', { id: a.id });
      assert.equal(inUse.status, 400, inUse.text);
      assert.equal(inUse.body.error.code, 'channel_in_use');
      assert.match(inUse.body.error.message, /uses-openai/);
      await seen('POST', '/admin/netaclaw/agent/update', { id: agent.id, modelChannelId: null });
      // deleting the default hands it to the oldest remaining channel
      const del = await seen('POST', '/admin/netaclaw/channel/delete', { id: b.id });
      assert.deepEqual(del, { id: b.id, defaultChannelId: a.id });
      assert.equal((await seen('GET', `/admin/netaclaw/channel/info?id=${a.id}`)).isDefault, true);
      assert.deepEqual(await seen('POST', '/admin/netaclaw/channel/delete', { id: a.id }), { id: a.id, defaultChannelId: null });
    });
  });

  test('NETACLAW_MODEL_* create, then update, the default channel at start; bad values stop the start', async () => {
    const db = await backend.fresh();
    const env = {
      ...db.env,
      NETACLAW_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      NETACLAW_MODEL_API_KEY: KEY_A,
      NETACLAW_MODEL: 'model-one',
      NETACLAW_MODEL_CAPABILITY: 'vision',
    };
    await withServer(env, async s => {
      assert.match(s.log(), /model channel "default" \(id \d+, default\) created from NETACLAW_MODEL_\*/);
      assert.ok(!s.log().includes(KEY_A), 'the key is not logged');
      const list = (await ok(s, 'POST', '/admin/netaclaw/channel/page', {})).body.data.list;
      assert.equal(list.length, 1);
      assert.deepEqual(
        {
          name: list[0].name,
          baseUrl: list[0].baseUrl,
          model: list[0].model,
          capability: list[0].capability,
          isDefault: list[0].isDefault,
          masked: list[0].apiKeyMasked,
        },
        { name: 'default', baseUrl: 'http://127.0.0.1:9/v1', model: 'model-one', capability: 'vision', isDefault: true, masked: 'sk-…3f9a' }
      );
      // an admin-made channel that becomes the default is the one the environment updates next time
      await ok(s, 'POST', '/admin/netaclaw/channel/add', { name: 'mine', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', isDefault: true });
    });
    const { NETACLAW_MODEL_API_KEY: _k, NETACLAW_MODEL_CAPABILITY: _c, ...noKey } = env;
    await withServer({ ...noKey, NETACLAW_MODEL: 'model-two' }, async s => {
      assert.match(s.log(), /model channel "mine" \(id \d+, default\) updated from NETACLAW_MODEL_\*/);
      const list = (await ok(s, 'POST', '/admin/netaclaw/channel/page', {})).body.data.list;
      assert.deepEqual(
        list.map(c => [c.name, c.model, c.capability, c.isDefault]),
        [
          ['default', 'model-one', 'vision', false],
          ['mine', 'model-two', 'text', true],
        ]
      );
    });
    const rows = await db.sql('SELECT name, apiKey FROM netaclaw_model_channel ORDER BY id');
    assert.deepEqual(
      rows.map(r => [r.name, r.apiKey && plainSecret(r.apiKey, CHANNEL_API_KEY)]),
      [
        ['default', KEY_A],
        ['mine', null],
      ],
      'no key in the env: the stored key is kept'
    );

    for (const [extra, message] of [
      [{ NETACLAW_MODEL_BASE_URL: '', NETACLAW_MODEL: 'm' }, /NETACLAW_MODEL is set but NETACLAW_MODEL_BASE_URL is not/],
      [{ NETACLAW_MODEL: '' }, /NETACLAW_MODEL_BASE_URL is set but NETACLAW_MODEL is not/],
      [{ NETACLAW_MODEL_BASE_URL: 'localhost:11434' }, /NETACLAW_MODEL_BASE_URL must be an http\(s\) URL/],
      [{ NETACLAW_MODEL_CAPABILITY: 'smell' }, /NETACLAW_MODEL_CAPABILITY: unknown value "smell"/],
      [{ NETACLAW_MODEL_TIMEOUT_MS: 'soon' }, /NETACLAW_MODEL_TIMEOUT_MS must be an integer/],
    ]) {
      const failed = await startServer({ ...env, ...extra }, { expectExit: true });
      assert.notEqual(failed.exitCode, 0);
      assert.match(failed.log(), message);
    }
  });

  test("previewPrompt: the channel's capability, the session layer, the joined system prompt", async () => {
    const db = await backend.fresh();
    // two skills in the skills folder: one with front matter, one described by its first line of text
    const skillsDir = require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'netaclaw-skills-'));
    const writeSkill = (name, text) => {
      require('node:fs').mkdirSync(require('node:path').join(skillsDir, name));
      require('node:fs').writeFileSync(require('node:path').join(skillsDir, name, 'SKILL.md'), text);
    };
    writeSkill('review', '---\nname: review\ndescription: "Reviews a change for bugs and style."\n---\n# Review\nSteps…\n');
    writeSkill('deploy', '# Deploy\n\nShips the build to staging, then to production.\n');
    // a SKILL.md that is a FIFO: listed by its name, and the prompt does not wait on it
    require('node:fs').mkdirSync(require('node:path').join(skillsDir, 'fifo'));
    require('node:child_process').execFileSync('mkfifo', [require('node:path').join(skillsDir, 'fifo', 'SKILL.md')]);
    await withServer({ ...db.env, NETACLAW_SKILLS_DIR: skillsDir }, async s => {
      const noChannel = (await ok(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p' } })).body.data;
      assert.equal(noChannel.channel, null);
      assert.equal(noChannel.modelCapability, 'text');
      assert.ok(noChannel.warnings.some(w => w.code === 'capability_fallback_text'));

      const vision = (await ok(s, 'POST', '/admin/netaclaw/channel/add', { name: 'v', baseUrl: 'http://127.0.0.1:9/v1', model: 'vl', capability: 'vision' }))
        .body.data;
      const text = (await ok(s, 'POST', '/admin/netaclaw/channel/add', { name: 't', baseUrl: 'http://127.0.0.1:9/v1', model: 'tx', capability: 'multimodal' }))
        .body.data;
      const viaDefault = (await ok(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p', modelCapability: 'text' } })).body.data;
      assert.equal(viaDefault.channel.id, vision.id);
      assert.equal(viaDefault.modelCapability, 'vision', 'the channel decides, not the agent column');
      assert.ok(!viaDefault.warnings.some(w => w.code === 'capability_fallback_text'));
      const own = (await ok(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p', modelChannelId: text.id } })).body.data;
      assert.equal(own.channel.id, text.id);
      assert.equal(own.modelCapability, 'multimodal');
      const missing = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p', modelChannelId: 999 } });
      assert.equal(missing.status, 404, missing.text);
      assert.match(missing.body.error.message, /model channel 999/);

      const session = { sessionCwd: '/work/proj/./src/..', workspaceRoots: ['/data//sets/'], shellPermitted: true, writePermitted: false };
      const p = (
        await ok(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p', skills: ['review', 'deploy', '../etc', 'fifo'] }, ...session })
      ).body.data;
      const layer = key => p.layers.find(l => l.key === key).content;
      assert.equal(
        layer('session'),
        [
          'Session:',
          '- working directory: /work/proj',
          '- workspace roots: /work/proj, /data/sets (relative paths resolve against /work/proj)',
          '- shell commands: allowed',
          '- file writes: not allowed (read-only)',
        ].join('\n')
      );
      // Layer 3: each bound skill with its description (a name without a skill folder by its name), and the
      // builtin tools a skill may use (the package's builtinToolNames)
      assert.equal(
        layer('skills'),
        [
          'Skills bound to you (read a skill with read_skill before you follow it):',
          '- review: Reviews a change for bugs and style.',
          '- deploy: Ships the build to staging, then to production.',
          '- ../etc',
          '- fifo',
          `Builtin tools a skill may use: ${p.builtinToolNames.join(', ')}`,
        ].join('\n')
      );
      assert.ok(p.builtinToolNames.includes('read_file'), JSON.stringify(p.builtinToolNames));
      assert.equal(
        p.systemPrompt,
        p.layers
          .map(l => l.content)
          .filter(Boolean)
          .join('\n\n')
      );
      const none = (await ok(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p' } })).body.data;
      assert.equal(
        none.layers.find(l => l.key === 'session').content,
        'Session:\n- workspace: none\n- shell commands: not allowed\n- file writes: not allowed (read-only)'
      );
      const rel = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent: { name: 'p' }, sessionCwd: 'relative/dir' });
      assert.equal(rel.status, 400, rel.text);
      assert.equal(rel.body.error.code, 'invalid_input');
    });
  });
}

runOnEveryBackend(defineTests);
