'use strict';
/**
 * The skills an agent binds: GET /admin/netaclaw/skill/list lists the installed ones (a folder of the
 * skills folder with a SKILL.md, its description); adding or updating an agent refuses a name that is not
 * installed (`skill_not_installed`, 400, naming it) or listed twice, and writes nothing; a skill the agent
 * binds already stays bound after its folder is gone.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call, installSkill } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');

runOnEveryBackend(backend => {
  test('skills: the installed ones are listed; an agent binds only those, each once', async () => {
    const db = await backend.fresh();
    const root = installSkill(db.env, 'code-review', '---\ndescription: "Review a change for defects"\n---\n# Code review\n');
    installSkill(db.env, 'release-notes', '# Release notes\n\nWrite the notes of a release.\n');
    // not skills: a folder without SKILL.md, a plain file, a SKILL.md that is a symlink out of the folder
    fs.mkdirSync(path.join(root, 'empty'));
    fs.writeFileSync(path.join(root, 'loose.md'), 'x');
    const outside = path.join(db.env.DATA_DIR, 'outside.md');
    fs.writeFileSync(outside, 'secret');
    fs.mkdirSync(path.join(root, 'leak'));
    fs.symlinkSync(outside, path.join(root, 'leak', 'SKILL.md'));
    await withServer(db.env, async s => {
      const listed = await call(s, 'GET', '/admin/netaclaw/skill/list');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.data.list, [
        { name: 'code-review', description: 'Review a change for defects' },
        { name: 'release-notes', description: 'Write the notes of a release.' },
      ]);
      const anonymous = await call(s, 'GET', '/admin/netaclaw/skill/list', undefined, { token: null });
      assert.equal(anonymous.status, 401, 'the list needs the admin login');

      const count = async () => (await call(s, 'POST', '/admin/netaclaw/agent/page', {})).body.data.pagination.total;
      for (const [i, name] of [
        [0, 'code review'],
        [1, 'bad/../name'],
        [0, 'empty'],
        [0, 'leak'],
        [0, '..'],
      ]) {
        const skills = i === 0 ? [name] : ['code-review', name];
        const r = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: `a ${name}`, skills });
        assert.equal(r.status, 400, `${JSON.stringify(name)}: ${r.text}`);
        assert.equal(r.body.error.code, 'skill_not_installed', r.text);
        assert.equal(r.body.error.name, name);
        assert.equal(r.body.error.index, i);
        assert.ok(r.body.error.message.startsWith(`skills[${i}]: no installed skill is named ${JSON.stringify(name)}`), r.body.error.message);
      }
      const blank = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'blank', skills: [''] });
      assert.equal(blank.status, 400, blank.text);
      assert.equal(blank.body.error.code, 'invalid_input');
      const twice = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'twice', skills: ['code-review', 'code-review'] });
      assert.equal(twice.status, 400, twice.text);
      assert.equal(twice.body.error.code, 'invalid_input');
      assert.match(twice.body.error.message, /^skills\[1\]: "code-review" is listed twice$/);
      assert.equal(await count(), 0, 'nothing was added');

      const added = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'reviewer', skills: ['code-review', 'release-notes'] });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(added.body.data.skills, ['code-review', 'release-notes']);
      const id = added.body.data.id;

      // an update naming a skill that is not installed writes nothing
      const bad = await call(s, 'POST', '/admin/netaclaw/agent/update', { id, name: 'renamed', skills: ['code-review', 'nope'] });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'skill_not_installed');
      const info = (await call(s, 'GET', `/admin/netaclaw/agent/info?id=${id}`)).body.data;
      assert.deepEqual([info.name, info.skills], ['reviewer', ['code-review', 'release-notes']]);

      // a bound skill removed from the folder stays bound (the agent can still be saved), but cannot be bound anew
      fs.rmSync(path.join(root, 'release-notes'), { recursive: true });
      const kept = await call(s, 'POST', '/admin/netaclaw/agent/update', { id, name: 'renamed', skills: ['release-notes', 'code-review'] });
      assert.equal(kept.status, 200, kept.text);
      assert.deepEqual(kept.body.data.skills, ['release-notes', 'code-review']);
      const other = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'other', skills: ['release-notes'] });
      assert.equal(other.status, 400, other.text);
      assert.equal(other.body.error.code, 'skill_not_installed');
      assert.deepEqual(
        (await call(s, 'GET', '/admin/netaclaw/skill/list')).body.data.list.map(x => x.name),
        ['code-review']
      );
    });
  });
});
