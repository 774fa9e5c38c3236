'use strict';
/**
 * The sandbox network (runtime/net: docs/runtime.md "Network"): a sandbox keeps its empty network
 * namespace and reaches only the hosts its rules' `net()` patterns allow, through its own proxy on a Unix
 * socket and a loopback bridge inside. Real bwrap sandboxes, real curl / npm / pip / python3 inside them;
 * the test's servers listen on 127.0.0.1 of the host, their names come from a test hosts file
 * (NETACLAW_NET_HOSTS_FILE), so nothing here reaches an outside address. Every decision goes through
 * `decideNetwork` (net/decide.ts).
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const https = require('node:https');
const { spawnSync } = require('node:child_process');
const { rt, workspace, diagnose, callText, withHost, FIXTURE_WORKER, confinement, sandboxOf } = require('./support/runtime');

const { ShellProcessOperations } = rt('operations/process.js');
const { decideNetwork, wantsNetwork } = rt('net/decide.js');
const { NET_ENV } = rt('net/sandbox.js');
const { connect, httpServerRefusal } = rt('mcp/client.js');

const isRoot = process.getuid() === 0;

/** The test's servers on the host's loopback, the hosts file naming them, a certificate for the HTTPS one. */
async function startServers(base) {
  const seen = [];
  const handler = (req, res) => {
    seen.push(`${req.method} ${req.headers.host} ${req.url}`);
    if (req.url === '/leftpad') {
      // a tiny npm registry: the package document `npm view` reads
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'leftpad', 'dist-tags': { latest: '7.7.7' }, versions: { '7.7.7': { name: 'leftpad', version: '7.7.7' } } }));
    } else if (req.url === '/simple/tinypkg/') {
      // a tiny PEP 503 simple index: what `pip index versions` reads
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><a href="/files/tinypkg-4.2.0.tar.gz">tinypkg-4.2.0.tar.gz</a></body></html>');
    } else {
      res.end(`hello from ${req.headers.host}\n`);
    }
  };
  const plain = http.createServer(handler);
  await new Promise(r => plain.listen(0, '127.0.0.1', r));
  const key = path.join(base, 'key.pem');
  const cert = path.join(base, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=secure.test',
      '-addext',
      'subjectAltName=DNS:secure.test',
    ],
    { encoding: 'utf8' }
  );
  assert.equal(made.status, 0, made.stderr);
  const secure = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, handler);
  await new Promise(r => secure.listen(0, '127.0.0.1', r));
  const hosts = path.join(base, 'hosts');
  fs.writeFileSync(hosts, '127.0.0.1 allowed.test registry.test secure.test denied.test ask.test other.test\n');
  fs.chmodSync(base, 0o755);
  fs.chmodSync(hosts, 0o644);
  return {
    seen,
    cert,
    hosts,
    httpPort: plain.address().port,
    httpsPort: secure.address().port,
    close: () => {
      plain.close();
      plain.closeAllConnections();
      secure.close();
      secure.closeAllConnections();
    },
  };
}

describe('decideNetwork: net() patterns (the one decision every connection goes through)', () => {
  test('exact host, *.suffix, :port, deny over ask over allow, no host by default, approvals answer an ask', () => {
    const rules = {
      global: { allow: ['net(*.example.org)', 'net(api.github.com:443)', 'bash(ls)'], deny: ['net(evil.example.org)'] },
      agent: { ask: ['net(pypi.org)'] },
      session: { allow: ['net(pypi.org)'] },
    };
    const v = (h, p) => decideNetwork(rules, h, p);
    assert.deepEqual([v('a.example.org', 80).verdict, v('a.example.org', 80).rule, v('a.example.org', 80).level], ['allow', 'net(*.example.org)', 'global']);
    assert.equal(v('a.b.example.org', 8080).verdict, 'allow');
    assert.equal(v('example.org', 443).verdict, 'deny', 'a *.suffix rule names the names below the suffix only');
    assert.equal(v('notexample.org', 443).verdict, 'deny');
    assert.equal(v('API.GitHub.com.', 443).verdict, 'allow', 'case and a trailing dot do not matter');
    assert.equal(v('api.github.com', 80).verdict, 'deny', 'a rule with a port allows that port only');
    const evil = v('evil.example.org', 443);
    assert.deepEqual([evil.verdict, evil.rule], ['deny', 'net(evil.example.org)']);
    assert.match(evil.message, /evil\.example\.org:443.*net\(evil\.example\.org\)/);
    assert.deepEqual([v('pypi.org', 443).verdict, v('pypi.org', 443).level], ['ask', 'agent'], 'ask over an allow of another level');
    assert.equal(decideNetwork({ ...rules, approvals: ['net(pypi.org)'] }, 'pypi.org', 443).verdict, 'allow');
    const none = decideNetwork(null, 'example.org', 443);
    assert.deepEqual([none.verdict, none.rule], ['deny', undefined]);
    assert.match(none.message, /no net\(\) rule allows it/);
    assert.equal(decideNetwork({ session: { allow: ['net([::1]:8080)'] } }, '::1', 8080).verdict, 'allow');
    assert.equal(wantsNetwork(rules), true);
    assert.equal(wantsNetwork({ global: { allow: ['bash(ls)'], deny: ['net(x.org)'] } }), false, 'only an allow or ask gives a sandbox the proxy');
    // a name pattern never matches an IP address, not even net(*); a pattern naming an address in another
    // spelling is no rule at all (the package refuses it)
    assert.equal(decideNetwork({ global: { allow: ['net(*)'] } }, '127.0.0.1', 80).verdict, 'deny');
    const spelled = decideNetwork({ global: { allow: ['net(*.0.0.1)'] } }, '127.0.0.1', 80);
    assert.deepEqual([spelled.verdict, spelled.rule], ['deny', undefined]);
    assert.match(spelled.message, /another spelling/);
    // a host the package cannot read is refused with its sentence, never connected
    const odd = decideNetwork(rules, '0x7f.0.0.1', 80);
    assert.equal(odd.verdict, 'deny');
    assert.match(odd.message, /host/);
  });
});

describe('a sandbox reaches only the hosts its net() rules allow', () => {
  let base;
  let srv;
  let ws;
  const records = [];
  let rules;
  const sh = async (command, opts = {}) => {
    const r = await new ShellProcessOperations(sandboxOf('bwrap')).exec({
      roots: [ws.root],
      readonly: false,
      cwd: ws.root,
      command,
      timeoutMs: 60000,
      rules: opts.rules ?? rules,
      network: { record: r => records.push(r), ...(opts.network ?? {}) },
    });
    return r;
  };

  before(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-'));
    srv = await startServers(base);
    process.env.NETACLAW_NET_HOSTS_FILE = srv.hosts;
    ws = workspace();
    fs.copyFileSync(srv.cert, path.join(ws.root, 'cert.pem'));
    fs.chmodSync(path.join(ws.root, 'cert.pem'), 0o644);
    rules = {
      global: { allow: ['net(allowed.test)', 'net(registry.test)', `net(secure.test:${srv.httpsPort})`], deny: ['net(denied.test)'] },
      session: { ask: ['net(ask.test)'] },
    };
  });
  after(() => {
    srv.close();
    ws.cleanup();
    fs.rmSync(base, { recursive: true, force: true });
    delete process.env.NETACLAW_NET_HOSTS_FILE;
  });

  test('an allowed host answers curl over HTTP and over HTTPS (CONNECT, the certificate checked by curl)', async () => {
    records.length = 0;
    const r = await sh(
      `curl -sS --max-time 20 http://allowed.test:${srv.httpPort}/x && curl -sS --max-time 20 --cacert cert.pem https://secure.test:${srv.httpsPort}/tls`
    );
    assert.equal(r.exitCode, 0, r.output);
    assert.match(r.output, new RegExp(`hello from allowed.test:${srv.httpPort}`));
    // a Host header naming another server is replaced by the name that was decided
    const vhost = await sh(`curl -sS -H 'Host: denied.test' http://allowed.test:${srv.httpPort}/vhost`);
    assert.match(vhost.output, new RegExp(`hello from allowed.test:${srv.httpPort}`), vhost.output);
    assert.match(r.output, new RegExp(`hello from secure.test:${srv.httpsPort}`));
    assert.ok(srv.seen.includes(`GET secure.test:${srv.httpsPort} /tls`), srv.seen.join('\n'));
    const tunnel = records.find(x => x.method === 'CONNECT' && x.host === 'secure.test');
    assert.deepEqual([tunnel.outcome, tunnel.decision.rule, tunnel.decision.level], ['connected', `net(secure.test:${srv.httpsPort})`, 'global']);
    assert.ok(records.some(x => x.method === 'GET' && x.host === 'allowed.test' && x.outcome === 'connected'));
  });

  test('npm and pip reach an allowed registry configured by the environment alone', async () => {
    for (const k of [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'ALL_PROXY',
      'http_proxy',
      'https_proxy',
      'npm_config_proxy',
      'npm_config_https_proxy',
      'PIP_PROXY',
      'GIT_CONFIG_VALUE_0',
    ]) {
      assert.equal(NET_ENV[k], 'http://127.0.0.1:3128', k);
    }
    const r = await sh(
      [
        'env | grep -c -i _proxy=http://127.0.0.1:3128',
        'git config --get http.proxy',
        `npm view leftpad version --registry http://registry.test:${srv.httpPort}/ --cache /tmp/npm-cache --no-update-notifier --fetch-retries 0`,
        `python3 -m pip index versions tinypkg --index-url http://registry.test:${srv.httpPort}/simple --trusted-host registry.test --no-cache-dir --disable-pip-version-check`,
      ].join(' && ')
    );
    assert.equal(r.exitCode, 0, r.output);
    assert.match(r.output, /^http:\/\/127\.0\.0\.1:3128$/m, 'git reads the proxy from GIT_CONFIG_*');
    assert.match(r.output, /^7\.7\.7$/m, r.output);
    assert.match(r.output, /tinypkg \(4\.2\.0\)/, r.output);
    assert.ok(srv.seen.includes(`GET registry.test:${srv.httpPort} /leftpad`), srv.seen.join('\n'));
    assert.ok(srv.seen.includes(`GET registry.test:${srv.httpPort} /simple/tinypkg/`), srv.seen.join('\n'));
  });

  test('a denied host, a host no rule names, an IP literal and a CONNECT to a port the rule does not name: 403 with the rule, and recorded', async () => {
    records.length = 0;
    const before = srv.seen.length;
    const r = await sh(
      [
        `curl -sS http://denied.test:${srv.httpPort}/`,
        `curl -sS http://other.test:${srv.httpPort}/`,
        `curl -sS http://127.0.0.1:${srv.httpPort}/`,
        `curl -sS -o /dev/null -w 'literal-connect %{http_connect}\\n' -k https://127.0.0.1:${srv.httpsPort}/`,
        `curl -sS -o /dev/null -w 'port-connect %{http_connect}\\n' -k https://secure.test:${srv.httpPort}/`,
        'true',
      ].join('; ')
    );
    assert.match(r.output, new RegExp(`netaclaw proxy: denied.test:${srv.httpPort} is refused: net\\(denied.test\\) \\(global rules\\)`));
    assert.match(r.output, new RegExp(`netaclaw proxy: other.test:${srv.httpPort} is refused: no net\\(\\) rule allows it`));
    assert.match(r.output, new RegExp(`netaclaw proxy: 127\\.0\\.0\\.1:${srv.httpPort} is refused: no net\\(\\) rule allows it`));
    assert.match(r.output, /^literal-connect 403$/m, r.output);
    assert.match(r.output, /^port-connect 403$/m, r.output);
    assert.equal(srv.seen.length, before, `nothing reached the servers: ${srv.seen.slice(before).join(', ')}`);
    const refused = records.filter(x => x.outcome === 'refused').map(x => `${x.method} ${x.host}:${x.port} ${x.decision.rule ?? '-'}`);
    assert.deepEqual(refused.sort(), [
      `CONNECT 127.0.0.1:${srv.httpsPort} -`,
      `CONNECT secure.test:${srv.httpPort} -`,
      `GET 127.0.0.1:${srv.httpPort} -`,
      `GET denied.test:${srv.httpPort} net(denied.test)`,
      `GET other.test:${srv.httpPort} -`,
    ]);
    // a rule that names the literal lets it through
    const named = await sh(`curl -sS http://127.0.0.1:${srv.httpPort}/lit`, { rules: { session: { allow: [`net(127.0.0.1:${srv.httpPort})`] } } });
    assert.equal(named.exitCode, 0, named.output);
    assert.match(named.output, /hello from 127\.0\.0\.1/);
  });

  test('nothing else leaves: no DNS, no direct connection (NO_PROXY), no AF_VSOCK, packet or raw socket, only lo', async () => {
    const probe = [
      'import socket, errno',
      'try:',
      "    print('lookup', socket.getaddrinfo('allowed.test', 80))",
      'except socket.gaierror as e:',
      "    print('lookup-failed', e.errno)",
      // AF_VSOCK, AF_PACKET, and a raw IPv4 socket (needs CAP_NET_RAW, which the sandbox has not)
      "for name, fam, typ, proto in (('vsock', 40, socket.SOCK_STREAM, 0), ('packet', 17, socket.SOCK_RAW, 0), ('raw', 2, socket.SOCK_RAW, 1)):",
      '    try:',
      '        socket.socket(fam, typ, proto); print(name, "ok")',
      '    except OSError as e:',
      '        print(name, errno.errorcode[e.errno])',
      's = socket.socket(); s.settimeout(3)',
      'try:',
      // a documentation address (TEST-NET-1): the empty namespace has no route to anything
      "    s.connect(('192.0.2.1', 80)); print('direct ok')",
      'except OSError as e:',
      "    print('direct', errno.errorcode.get(e.errno, e))",
    ].join('\n');
    fs.writeFileSync(path.join(ws.root, 'probe.py'), probe);
    const r = await sh(
      [
        'getent hosts allowed.test; echo getent=$?',
        'cat /etc/resolv.conf 2>/dev/null | grep -c nameserver; echo resolv=$?',
        "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '; echo",
        `NO_PROXY='*' no_proxy='*' curl -sS --max-time 5 http://allowed.test:${srv.httpPort}/; echo noproxy-name=$?`,
        `NO_PROXY='*' no_proxy='*' curl -sS --max-time 5 http://127.0.0.1:${srv.httpPort}/; echo noproxy-literal=$?`,
        'python3 probe.py',
      ].join('; ')
    );
    assert.match(r.output, /^getent=2$/m, r.output);
    assert.match(r.output, /^resolv=[12]$/m, 'no nameserver is configured inside');
    assert.match(r.output, /^lo $/m, 'the namespace holds lo alone');
    assert.match(r.output, /Could not resolve host: allowed\.test[\s\S]*noproxy-name=6/);
    assert.match(r.output, /noproxy-literal=7/, "a direct connection to the host's loopback finds nothing there");
    assert.match(r.output, /^lookup-failed /m);
    assert.match(r.output, /^vsock EAFNOSUPPORT$/m);
    assert.match(r.output, /^packet EAFNOSUPPORT$/m);
    assert.match(r.output, /^raw EPERM$/m);
    assert.match(r.output, /^direct ENETUNREACH$/m);
  });

  test('an ask connection waits for the approval and goes on when approved; refused or unanswered, it is refused', async () => {
    const asked = [];
    const approve = await (async () => {
      const t0 = Date.now();
      const r = await sh(`curl -sS --max-time 30 http://ask.test:${srv.httpPort}/asked`, {
        network: {
          ask: q => {
            asked.push(q);
            return new Promise(resolve => setTimeout(() => resolve(true), 700));
          },
        },
      });
      return { r, ms: Date.now() - t0 };
    })();
    assert.equal(approve.r.exitCode, 0, approve.r.output);
    assert.match(approve.r.output, /hello from ask\.test/);
    assert.ok(approve.ms >= 700, `${approve.ms} ms: the connection waited`);
    assert.deepEqual(
      asked.map(q => [q.host, q.port, q.rule, q.level]),
      [['ask.test', srv.httpPort, 'net(ask.test)', 'session']]
    );
    const no = await sh(`curl -sS http://ask.test:${srv.httpPort}/`, { network: { ask: async () => false } });
    assert.match(no.output, /net\(ask\.test\) \(session rules\); the approval was refused/);
    const late = await sh(`curl -sS http://ask.test:${srv.httpPort}/`, { network: { ask: () => new Promise(() => undefined), waitMs: 300 } });
    assert.match(late.output, /net\(ask\.test\) \(session rules\); no approval came within 0\.3 s, so it is refused/);
    const nobody = await sh(`curl -sS http://ask.test:${srv.httpPort}/`);
    assert.match(nobody.output, /no one can approve it here, so it is refused/);
  });

  test("a worker's own sandbox: its shells reach the allowed host, and nothing else", async () => {
    const { policy, routes } = diagnose(ws.root, { shell: true });
    const seen = [];
    await withHost({ policy, routes, rules, network: { record: r => seen.push(r) }, test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      const ok = await host.call('x', { act: 'sh', command: `curl -sS http://allowed.test:${srv.httpPort}/worker` });
      assert.match(callText(ok), /hello from allowed\.test/);
      const no = await host.call('x', { act: 'sh', command: `curl -sS http://denied.test:${srv.httpPort}/ || true` });
      assert.match(callText(no), /netaclaw proxy: denied\.test:\d+ is refused: net\(denied\.test\)/);
    });
    assert.deepEqual(
      seen.map(r => `${r.host} ${r.outcome}`),
      ['allowed.test connected', 'denied.test refused']
    );
    // a loop of refused connections: the result names each distinct one once, at most NET_NOTES_MAX, and
    // counts the others; every connection is recorded
    const { NET_NOTES_MAX } = rt('host.js');
    seen.length = 0;
    await withHost({ policy, routes, rules, network: { record: r => seen.push(r) }, test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      const command =
        `for i in $(seq 1 10); do curl -sS http://denied.test:${srv.httpPort}/ >/dev/null 2>&1; done; ` +
        `for i in $(seq 1 30); do curl -sS http://h$i.test:${srv.httpPort}/ >/dev/null 2>&1; done; echo looped`;
      const r = await host.call('x', { act: 'sh', command });
      assert.equal(r.network.length, NET_NOTES_MAX, JSON.stringify(r.network));
      assert.deepEqual(
        r.network.slice(0, 2).map(n => [n.host, n.why]),
        [
          ['denied.test', 'rule'],
          ['h1.test', 'default'],
        ]
      );
      const text = callText(r);
      assert.equal(text.match(/^network: connection to denied\.test:/gm)?.length, 1, text);
      assert.match(text, /^network: 11 more refused connection\(s\), unlike those above, not listed here$/m);
    });
    assert.equal(seen.filter(r => r.outcome === 'refused').length, 40, 'every connection is recorded');
    // without a net() rule the worker's sandbox has no proxy and no way out
    await withHost({ policy, routes, test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      const none = await host.call('x', {
        act: 'sh',
        command: `curl -sS --max-time 5 http://allowed.test:${srv.httpPort}/ 2>&1; env | grep -ci _proxy || true`,
      });
      assert.match(callText(none), /Could not resolve host/);
      assert.match(callText(none), /^0$/m);
    });
  });

  /** The fixture MCP server (one tool, `fetch`: curl a URL) over stdio in a bwrap sandbox, with the servers' network `net`. */
  const connectNetServer = (name, net) =>
    connect(
      {
        name,
        transport: 'stdio',
        command: process.execPath,
        args: [path.join(__dirname, 'fixtures', 'mcp-net-server.mjs')],
        url: null,
        env: {},
        workspaceRoots: [],
      },
      sandboxOf('bwrap'),
      net
    );

  test("a stdio MCP server's sandbox reaches the hosts the GLOBAL net() rules allow, and no other", async () => {
    const seen = [];
    const before = srv.seen.length;
    let conn;
    try {
      conn = await connectNetServer('netfx', {
        global: { allow: ['net(allowed.test)'], ask: ['net(ask.test)'], deny: ['net(denied.test)'] },
        record: (server, r) => seen.push(`${server} ${r.host} ${r.outcome}`),
      });
      const call = async url => (await conn.client.callTool({ name: 'fetch', arguments: { url } })).content[0].text;
      assert.match(await call(`http://allowed.test:${srv.httpPort}/mcp-stdio`), /hello from allowed\.test/);
      assert.match(await call(`http://denied.test:${srv.httpPort}/`), /netaclaw proxy: denied\.test:\d+ is refused: net\(denied\.test\) \(global rules\)/);
      // an ask rule: no one is there to answer for a server, so the connection is refused at once
      const t0 = Date.now();
      assert.match(
        await call(`http://ask.test:${srv.httpPort}/`),
        /netaclaw proxy: ask\.test:\d+ is waiting for an approval: net\(ask\.test\) \(global rules\); no one can approve it here, so it is refused/
      );
      assert.ok(Date.now() - t0 < 5000, 'refused without waiting');
      // a host no rule names, and an IP literal
      assert.match(await call(`http://other.test:${srv.httpPort}/`), /netaclaw proxy: other\.test:\d+ is refused: no net\(\) rule allows it/);
      assert.match(await call(`http://127.0.0.1:${srv.httpPort}/`), /netaclaw proxy: 127\.0\.0\.1:\d+ is refused/);
      assert.deepEqual(seen, [
        'netfx allowed.test connected',
        'netfx denied.test refused',
        'netfx ask.test refused',
        'netfx other.test refused',
        'netfx 127.0.0.1 refused',
      ]);
      assert.deepEqual(srv.seen.slice(before), [`GET allowed.test:${srv.httpPort} /mcp-stdio`], 'only the allowed host was reached');
      assert.ok(!srv.seen.slice(before).some(l => / (denied|ask|other)\.test/.test(l) || / 127\.0\.0\.1:/.test(l)), srv.seen.join('\n'));
    } finally {
      await conn?.client.close().catch(() => undefined);
    }
  });

  test("a stdio MCP server's proxy decides each connection with the global rules as they are then; rules that cannot be read refuse", async () => {
    const seen = [];
    const before = srv.seen.length;
    let now = { allow: ['net(allowed.test)', 'net(other.test)'] };
    let conn;
    try {
      conn = await connectNetServer('netlive', {
        global: now,
        record: (server, r) => seen.push(`${server} ${r.host} ${r.outcome}`),
        current: async () => {
          if (now === null) throw new Error('the database is away');
          return now;
        },
      });
      const call = async url => (await conn.client.callTool({ name: 'fetch', arguments: { url } })).content[0].text;
      assert.match(await call(`http://allowed.test:${srv.httpPort}/live-1`), /hello from allowed\.test/);
      // the rule taken away: the next connection of the same running server is refused
      now = { allow: ['net(other.test)'] };
      assert.match(await call(`http://allowed.test:${srv.httpPort}/live-2`), /netaclaw proxy: allowed\.test:\d+ is refused: no net\(\) rule allows it/);
      assert.match(await call(`http://other.test:${srv.httpPort}/live-3`), /hello from other\.test/);
      // the rules cannot be read: refused, with the reason
      now = null;
      assert.match(
        await call(`http://other.test:${srv.httpPort}/live-4`),
        /netaclaw proxy: other\.test:\d+ is refused: the net\(\) rules could not be read \(the database is away\)/
      );
      assert.deepEqual(seen, ['netlive allowed.test connected', 'netlive allowed.test refused', 'netlive other.test connected', 'netlive other.test refused']);
      assert.deepEqual(
        srv.seen.slice(before),
        [`GET allowed.test:${srv.httpPort} /live-1`, `GET other.test:${srv.httpPort} /live-3`],
        'only what the rules of the moment allowed was reached'
      );
    } finally {
      await conn?.client.close().catch(() => undefined);
    }
  });

  test("a custom command tool run by the main process for a run: the run's rules and its records", async () => {
    const { commandTool } = rt('tools/command.js');
    const { pinRoots, pinnedOperations } = rt('pinned.js');
    const toolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-tool-'));
    fs.chmodSync(toolDir, 0o755);
    const program = path.join(toolDir, 'fetch.sh');
    // reads {"url": …} on stdin and fetches it with curl (which reads the proxy from the environment)
    fs.writeFileSync(program, '#!/bin/sh\nurl=$(sed \'s/.*"url":"\\([^"]*\\)".*/\\1/\')\ncurl -sS --max-time 10 "$url"\n', { mode: 0o755 });
    const seen = [];
    const pins = await pinRoots([ws.root], confinement().identity.switchUser ? { sandboxUser: confinement().identity } : {});
    try {
      const ops = pinnedOperations({ process: new ShellProcessOperations(sandboxOf('bwrap')) }, pins, rules, {
        record: r => seen.push(`${r.host} ${r.outcome}`),
      });
      const tool = commandTool({ type: 'command', command: [program], timeoutMs: 20000 });
      const ctx = { policy: { workspaceRoots: [ws.root], readonly: false }, ops };
      const allowed = await tool({ url: `http://allowed.test:${srv.httpPort}/tool` }, ctx);
      assert.match(allowed.output, /hello from allowed\.test/, allowed.output);
      const denied = await tool({ url: `http://denied.test:${srv.httpPort}/` }, ctx);
      assert.match(denied.output, /netaclaw proxy: denied\.test:\d+ is refused: net\(denied\.test\)/, denied.output);
      assert.deepEqual(seen, ['allowed.test connected', 'denied.test refused']);
    } finally {
      await pins.close();
      fs.rmSync(toolDir, { recursive: true, force: true });
    }
  });

  test('nothing is left once the sandboxes ended: no bridge process, no proxy socket or folder', async () => {
    // this process's own sandboxes only (the test files run beside this one have theirs): a bridge whose
    // socket is bound from this process's confinement folder, orphaned or not
    const ours = path.basename(confinement().dir);
    const isOurs = pid => fs.readFileSync(`/proc/${pid}/mountinfo`, 'utf8').includes(ours);
    await sh(`curl -sS http://allowed.test:${srv.httpPort}/last`);
    const bridges = fs
      .readdirSync('/proc')
      .filter(p => /^\d+$/.test(p))
      .filter(p => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('/run/netaclaw/net.sock') && isOurs(p);
        } catch {
          return false;
        }
      });
    assert.deepEqual(bridges, [], 'no bridge outlives its sandbox');
    const dir = confinement().dir;
    assert.deepEqual(
      fs.readdirSync(dir).filter(n => n.startsWith('net-')),
      [],
      "every sandbox's proxy folder is removed"
    );
  });

  test('an HTTP MCP server is reached only when a global net() rule allows its host', async () => {
    const url = `http://127.0.0.1:${srv.httpPort}/mcp`;
    assert.match(httpServerRefusal(url, null), /the backend does not reach this MCP server: 127\.0\.0\.1:\d+ is refused: no net\(\) rule allows it/);
    assert.match(httpServerRefusal(url, { deny: [`net(127.0.0.1)`] }), /net\(127\.0\.0\.1\) \(global rules\)/);
    assert.equal(httpServerRefusal(url, { allow: [`net(127.0.0.1:${srv.httpPort})`] }), null);
    await assert.rejects(
      connect({ name: 'web', transport: 'http', url, args: [], env: {}, workspaceRoots: [] }, sandboxOf('bwrap'), { global: { allow: [] } }),
      /the backend does not reach this MCP server: 127\.0\.0\.1:\d+ is refused: no net\(\) rule allows it .*a global allow rule naming its host is needed/
    );
    const before = srv.seen.length;
    // allowed: the backend connects (this server speaks no MCP, so the handshake fails after the request)
    await assert.rejects(
      connect({ name: 'web', transport: 'http', url, args: [], env: {}, workspaceRoots: [] }, sandboxOf('bwrap'), {
        global: { allow: [`net(127.0.0.1:${srv.httpPort})`] },
      })
    );
    assert.ok(srv.seen.length > before, 'the allowed server was reached');
  });
});

describe('the sandbox network with the backend as a non-root user', () => {
  test('an allowed host answers, a denied one is refused, the proxy runs as that user', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-user-'));
    const srv = await startServers(base);
    try {
      const script = path.join(__dirname, 'fixtures', 'net-unprivileged.js');
      const argv = isRoot
        ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script, String(srv.httpPort)]
        : [process.execPath, script, String(srv.httpPort)];
      const r = await new Promise(resolve => {
        const child = require('node:child_process').spawn(argv[0], argv.slice(1), {
          env: { PATH: process.env.PATH, HOME: '/tmp', NETACLAW_NET_HOSTS_FILE: srv.hosts },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', d => (out += d));
        child.stderr.on('data', d => (err += d));
        child.on('close', code => resolve({ code, out, err }));
      });
      assert.equal(r.code, 0, r.err);
      const out = JSON.parse(r.out.trim().split('\n').pop());
      assert.notEqual(out.uid, 0);
      assert.equal(out.identity.switchUser, false);
      assert.match(out.output, /hello from allowed\.test/);
      assert.match(out.output, /netaclaw proxy: denied\.test:\d+ is refused: net\(denied\.test\)/);
      assert.deepEqual(out.records, ['allowed.test connected', 'denied.test refused']);
    } finally {
      srv.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
