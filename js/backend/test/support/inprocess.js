'use strict';
// The real backend started inside the test process on SQLite (Midway's Bootstrap), so that a test can use
// its services directly — the batch runner as the executor uses it — and still ask it over HTTP.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, BACKEND_ROOT, SECRET_KEY } = require('./server');

/**
 * Boots the backend; returns { svc (the BatchRunner), store (SubagentService), agents, db, dataDir, url, service(Class), stop() }.
 * One per test file (process). `dbEnv`: another database (a MariaDB's `DB_*` variables) instead of SQLite.
 */
async function bootInProcess(prefix, dbEnv = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const k of Object.keys(process.env)) if (/^(DB_|NETACLAW_|MIDWAY_)/.test(k)) delete process.env[k];
  const port = await freePort();
  Object.assign(process.env, {
    DB_TYPE: 'sqlite',
    DB_PATH: path.join(dataDir, 'netaclaw.sqlite'),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: 'in-process-test-token',
    NETACLAW_SECRET_KEY: SECRET_KEY,
  });
  if (dbEnv.DB_TYPE && dbEnv.DB_TYPE !== 'sqlite') delete process.env.DB_PATH;
  Object.assign(process.env, dbEnv);
  const { Bootstrap } = require('@midwayjs/bootstrap');
  await Bootstrap.configure({ appDir: BACKEND_ROOT, baseDir: path.join(BACKEND_ROOT, 'dist') }).run();
  const { getCurrentApplicationContext } = require('@midwayjs/core');
  const ctx = getCurrentApplicationContext();
  const svc = await ctx.getAsync(require('../../dist/agent/batches.js').BatchRunner);
  const store = await ctx.getAsync(require('../../dist/service/subagent.js').SubagentService);
  const agents = await ctx.getAsync(require('../../dist/service/agent.js').AgentService);
  return {
    svc,
    agents,
    store,
    db: store.calls.manager,
    dataDir,
    url: `http://127.0.0.1:${port}`,
    /** The singleton of a service class (from ../../dist). */
    service: Class => ctx.getAsync(Class),
    async stop() {
      await Bootstrap.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

module.exports = { bootInProcess };
