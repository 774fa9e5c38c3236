'use strict';
// The two storage backends the suite runs against: SQLite (always) and a throw-away MariaDB server.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { freePort } = require('./server');

function tmpDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** SQLite: every fresh database is a new file in a new data dir. */
function sqliteBackend() {
  const Database = require('better-sqlite3');
  const root = tmpDir('netaclaw-sqlite-');
  let n = 0;
  return {
    name: 'sqlite',
    async fresh() {
      n += 1;
      const dir = path.join(root, `db${n}`);
      const file = path.join(dir, 'netaclaw.sqlite');
      return {
        env: { DB_TYPE: 'sqlite', DB_PATH: file, DATA_DIR: dir },
        dataDir: dir,
        /** Runs SQL directly on the database file (only while no server is running on it). */
        async sql(query, params = []) {
          const db = new Database(file);
          try {
            const stmt = db.prepare(query);
            return stmt.reader ? stmt.all(...params) : stmt.run(...params);
          } finally {
            db.close();
          }
        },
      };
    },
    async stop() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

function findExecutable(name) {
  const dirs = (process.env.PATH || '').split(path.delimiter).concat(['/usr/sbin', '/usr/local/sbin', '/sbin']);
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

function mariadbBinaries() {
  const server = findExecutable('mariadbd') || findExecutable('mysqld');
  const install = findExecutable('mariadb-install-db') || findExecutable('mysql_install_db');
  return server && install ? { server, install } : null;
}

/**
 * MariaDB: a private server on a loopback port in a temp datadir; every fresh database is a new
 * schema on it.
 */
async function mariadbBackend() {
  const bins = mariadbBinaries();
  if (!bins) throw new Error('mariadbd / mariadb-install-db not found');
  const mysql = require('mysql2/promise');
  const root = tmpDir('netaclaw-mariadb-');
  const datadir = path.join(root, 'data');
  const socket = path.join(root, 'mariadb.sock');
  // a tmpdir of its own: servers of other test files (or other checkouts) bootstrapping at the same moment
  // must not share /tmp's temporary tables
  const tmpdir = path.join(root, 'tmp');
  fs.mkdirSync(tmpdir);
  const port = await freePort();
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const userArgs = asRoot ? ['--user=root'] : [];
  execFileSync(
    bins.install,
    ['--no-defaults', `--datadir=${datadir}`, `--tmpdir=${tmpdir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...userArgs],
    { stdio: 'pipe' }
  );
  const serverArgs = [
    '--no-defaults',
    `--datadir=${datadir}`,
    `--tmpdir=${tmpdir}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--socket=${socket}`,
    `--pid-file=${path.join(root, 'mariadb.pid')}`,
    `--log-error=${path.join(root, 'error.log')}`,
    '--skip-name-resolve',
    '--innodb-buffer-pool-size=64M',
    ...userArgs,
  ];
  const admin = { host: '127.0.0.1', port, user: 'root', password: '' };
  let child;
  let exited;

  /**
   * Starts mariadbd on the datadir and port of this backend (unless it is running) and waits until it
   * accepts connections.
   */
  async function startMariadbd() {
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn(bins.server, serverArgs, { stdio: 'ignore' });
    exited = new Promise(resolve => child.on('exit', code => resolve(code)));
    const deadline = Date.now() + 60000;
    for (;;) {
      if (child.exitCode !== null) {
        const log = fs.existsSync(path.join(root, 'error.log')) ? fs.readFileSync(path.join(root, 'error.log'), 'utf8') : '';
        throw new Error(`mariadbd exited with code ${child.exitCode}:\n${log.slice(-4000)}`);
      }
      try {
        const c = await mysql.createConnection(admin);
        await c.end();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`mariadbd did not accept connections: ${err.message}`);
        await new Promise(r => setTimeout(r, 250));
      }
    }
  }

  /** Stops mariadbd (SIGTERM, SIGKILL after 30 s) and waits for it to exit. */
  async function stopMariadbd() {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT'); // a frozen server cannot shut down
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 30000);
      await exited;
      clearTimeout(t);
    }
  }

  await startMariadbd();
  let n = 0;
  return {
    name: 'mariadb',
    port,
    async fresh() {
      n += 1;
      const database = `netaclaw_t${n}`;
      const c = await mysql.createConnection(admin);
      await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await c.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
      await c.end();
      const dataDir = path.join(root, `app${n}`);
      return {
        env: {
          DB_TYPE: 'mysql',
          DB_HOST: '127.0.0.1',
          DB_PORT: String(port),
          DB_USER: 'root',
          DB_PASSWORD: '',
          DB_NAME: database,
          DATA_DIR: dataDir,
        },
        dataDir,
        database,
        /** A connection of its own to this database (the caller ends it). */
        connect: () => mysql.createConnection({ ...admin, database }),
        async sql(query, params = []) {
          const conn = await mysql.createConnection({ ...admin, database });
          try {
            const [rows] = await conn.query(query, params);
            return rows;
          } finally {
            await conn.end();
          }
        },
      };
    },
    /** The server process: stop it, start it again on the same port and datadir, freeze or thaw it. */
    stopServer: stopMariadbd,
    startServer: startMariadbd,
    freezeServer() {
      child.kill('SIGSTOP');
    },
    thawServer() {
      child.kill('SIGCONT');
    },
    async stop() {
      await stopMariadbd();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

module.exports = { sqliteBackend, mariadbBackend, mariadbBinaries };
