'use strict';
// A throw-away redis-server (Debian's `redis-server`, installed by scripts/setup.sh) on a free loopback
// port in a temp folder, nothing saved: the bus of the instances in test/bus.test.js.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort } = require('./server');

function redisBinary() {
  for (const d of (process.env.PATH || '').split(path.delimiter).concat(['/usr/bin', '/usr/sbin', '/usr/local/bin'])) {
    const p = path.join(d, 'redis-server');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

/** Whether a PING on `port` is answered PONG. */
function ping(port) {
  return new Promise(resolve => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    const done = ok => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.on('error', () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', d => {
      got += d;
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
  });
}

/** Starts redis-server; `stop()` / `start()` stop it and start it again on the same port. */
async function startRedis() {
  const bin = redisBinary();
  if (!bin) throw new Error('redis-server not found');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-redis-'));
  const port = await freePort();
  let child = null;
  let exited = null;
  let out = '';
  const redis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    log: () => out,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', d => (out += d));
      child.stderr.on('data', d => (out += d));
      exited = new Promise(resolve => child.on('exit', resolve));
      const deadline = Date.now() + 20000;
      while (!(await ping(port))) {
        if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${port}:\n${out}`);
        await new Promise(r => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
    async close() {
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}

module.exports = { startRedis, redisBinary };
