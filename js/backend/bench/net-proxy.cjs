#!/usr/bin/env node
'use strict';
// The sandbox network's added latency (docs/runtime.md "Network"): one HTTPS request on a NEW connection
// to a server on 127.0.0.1 — TCP, TLS handshake, GET, the whole answer — made three ways, interleaved:
//   direct   the client connects to the server;
//   proxy    the client connects to the proxy's Unix socket, CONNECT, then TLS through the tunnel
//            (runtime/net/proxy.ts, deciding each connection with decideNetwork);
//   bridge   the client connects to the loopback bridge (the Python process a sandbox runs,
//            runtime/net/sandbox.ts, here on the host's loopback), which forwards to that socket.
// Median and p90 of N rounds each (default 50). Needs the backend built (npm run build) and openssl.
//   node js/backend/bench/net-proxy.cjs [--rounds 50] [--out file.json]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const tls = require('node:tls');
const https = require('node:https');
const { spawn, spawnSync } = require('node:child_process');

const dist = path.resolve(__dirname, '..', 'dist', 'runtime', 'net');
const { BRIDGE } = require(path.join(dist, 'sandbox.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', '50'));
const OUT = arg('--out', null);

function freePort() {
  return new Promise(resolve => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

/** One GET over TLS on `socket` (already connected to the server, directly or through a tunnel); resolves when the whole answer is in. */
function getOver(socket, ca) {
  return new Promise((resolve, reject) => {
    const t = tls.connect({ socket, servername: 'bench.test', ca });
    t.once('error', reject);
    t.once('secureConnect', () => t.write('GET / HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n'));
    let got = '';
    t.on('data', d => (got += d));
    t.once('end', () => (got.startsWith('HTTP/1.1 200') ? resolve() : reject(new Error(got.slice(0, 200)))));
  });
}

/** A CONNECT on a fresh connection made by `open`; resolves with the tunnel's socket. */
function tunnel(open, port) {
  return new Promise((resolve, reject) => {
    const s = open();
    s.once('error', reject);
    s.once('connect', () => s.write(`CONNECT bench.test:${port} HTTP/1.1\r\nHost: bench.test:${port}\r\n\r\n`));
    let head = '';
    const onData = d => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head.slice(0, 200)));
      resolve(s);
    };
    s.on('data', onData);
  });
}

const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-bench-net-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=bench.test', '-addext', 'subjectAltName=DNS:bench.test']);
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  const ca = fs.readFileSync(cert);
  const server = https.createServer({ key: fs.readFileSync(key), cert: ca }, (req, res) => res.end('ok'));
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  fs.writeFileSync(path.join(dir, 'hosts'), '127.0.0.1 bench.test\n');
  process.env.NETACLAW_NET_HOSTS_FILE = path.join(dir, 'hosts');
  // the proxy in a process of its own, as the backend is to a sandbox's client
  const sock = path.join(dir, 'net.sock');
  const proxyCode = `const { NetProxy } = require(${JSON.stringify(path.join(dist, 'proxy.js'))});
    new NetProxy({ session: { allow: ['net(bench.test:${port})'] } }, { record: () => undefined }).listen(${JSON.stringify(sock)}).then(() => process.stdout.write('ready\\n'));`;
  const proxy = spawn(process.execPath, ['-e', proxyCode], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env } });
  await new Promise((resolve, reject) => {
    proxy.stdout.once('data', resolve);
    proxy.once('exit', code => reject(new Error(`the proxy exited (${code})`)));
  });
  const bridgePort = await freePort();
  const bridge = spawn('/usr/bin/python3', ['-c', BRIDGE, String(bridgePort), sock, '/bin/sleep', 'infinity'], { stdio: 'ignore', detached: true });
  for (let i = 0; i < 50; i++) {
    const up = await new Promise(r => net.connect(bridgePort, '127.0.0.1').once('connect', function () { this.destroy(); r(true); }).once('error', () => r(false)));
    if (up) break;
    await new Promise(r => setTimeout(r, 20));
  }
  const ways = {
    direct: () => new Promise((resolve, reject) => net.connect(port, '127.0.0.1').once('connect', function () { resolve(this); }).once('error', reject)).then(s => getOver(s, ca)),
    proxy: () => tunnel(() => net.connect(sock), port).then(s => getOver(s, ca)),
    bridge: () => tunnel(() => net.connect(bridgePort, '127.0.0.1'), port).then(s => getOver(s, ca)),
  };
  const times = { direct: [], proxy: [], bridge: [] };
  // warm-up: the first TLS handshakes and the first calls of each path
  for (let i = 0; i < 5; i++) for (const w of Object.values(ways)) await w();
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, w] of Object.entries(ways)) {
      const t0 = process.hrtime.bigint();
      await w();
      times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const result = { rounds: ROUNDS, load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') };
  for (const [name, xs] of Object.entries(times)) result[name] = { medianMs: +median(xs).toFixed(3), p90Ms: +p90(xs).toFixed(3) };
  result.addedByProxyMs = +(result.proxy.medianMs - result.direct.medianMs).toFixed(3);
  result.addedByBridgeAndProxyMs = +(result.bridge.medianMs - result.direct.medianMs).toFixed(3);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (OUT) fs.writeFileSync(OUT, JSON.stringify(result));
  // the bridge's forwarding child is in its process group (the parent became `sleep`)
  process.kill(-bridge.pid, 'SIGKILL');
  proxy.kill('SIGKILL');
  server.close();
  server.closeAllConnections();
  fs.rmSync(dir, { recursive: true, force: true });
})().catch(err => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
