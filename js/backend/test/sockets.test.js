'use strict';
/**
 * The seccomp filter refuses `socket()` and `socketpair()` of every family but AF_UNIX, AF_INET and AF_INET6
 * (runtime/confine.ts `SECCOMP_SOCKET_FAMILIES`), tried from inside real sandboxes with python3: a
 * main-process shell's, a worker's shell, and the worker's own Node process. Netlink, packet and vsock
 * answer EAFNOSUPPORT, also with high bits set in the family argument (the kernel reads an int); Unix and
 * IP sockets open; a lookup with AI_ADDRCONFIG (which asks over netlink) still answers. Control: the same
 * program on the host opens a netlink socket.
 */
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rt, sandboxOf, giveToSandbox, withHost, diagnose, callText, FIXTURE_WORKER } = require('./support/runtime');

const { ShellProcessOperations } = rt('operations/process.js');

describe('seccomp: sockets of other families are refused', () => {
  const probe = [
    'import socket, ctypes, errno',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'def raw(fam, typ, call=41):',
    '    r = libc.syscall(call, ctypes.c_long(fam), typ, 0) if call == 41 else libc.syscall(call, ctypes.c_long(fam), typ, 0, ctypes.byref((ctypes.c_int * 2)()))',
    "    return 'ok' if r >= 0 else errno.errorcode[ctypes.get_errno()]",
    "for name, fam, typ in [('unix', 1, 1), ('inet', 2, 1), ('inet6', 10, 2), ('netlink', 16, 3), ('packet', 17, 3), ('vsock', 40, 1), ('vsock-high-bits', (1 << 32) | 40, 1), ('netlink-high-bits', (1 << 32) | 16, 3)]:",
    '    print(name, raw(fam, typ))',
    "print('socketpair-unix', raw(1, 1, 53))",
    "print('socketpair-netlink', raw(16, 3, 53))",
    // AI_ADDRCONFIG makes glibc ask the kernel over netlink which address families are configured
    "print('lookup', socket.getaddrinfo('127.0.0.1', 80, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG)[0][4][0])",
  ].join('\n');
  const expectRefused = out => {
    for (const line of ['unix ok', 'inet ok', 'inet6 ok', 'socketpair-unix ok', 'lookup 127.0.0.1']) assert.ok(out.includes(line), `${line}: ${out}`);
    for (const fam of ['netlink', 'packet', 'vsock', 'vsock-high-bits', 'netlink-high-bits', 'socketpair-netlink']) {
      assert.match(out, new RegExp(`^${fam} EAFNOSUPPORT$`, 'm'), out);
    }
  };

  test("in a main-process shell's sandbox and in a worker's (its shell, and the worker's Node itself)", async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-sockets-')));
    const L = { root: path.join(base, 'root') };
    fs.mkdirSync(L.root);
    try {
      fs.writeFileSync(path.join(L.root, 'probe.py'), probe);
      giveToSandbox(L.root);
      const r = await new ShellProcessOperations(sandboxOf('bwrap')).exec({
        roots: [L.root],
        readonly: true,
        cwd: L.root,
        command: '/usr/bin/python3 probe.py',
        timeoutMs: 20000,
      });
      assert.equal(r.exitCode, 0, r.output);
      expectRefused(r.output);
      const { policy, routes } = diagnose(L.root, { shell: true });
      await withHost({ policy, routes }, async host => {
        const b = await host.call('bash', { command: '/usr/bin/python3 probe.py' });
        assert.equal(b.ok, true, b.error);
        expectRefused(b.output);
      });
      // the worker's own process: Node's net module asks for an AF_UNIX and an AF_INET socket and gets them
      await withHost({ policy, routes, test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
        const c = await host.call('x', { act: 'connect', port: 9 });
        assert.doesNotMatch(callText(c), /EAFNOSUPPORT/, 'AF_INET is allowed (the connection fails for want of a network)');
      });
      // control: outside the sandbox the same program opens a netlink and a packet-less family socket
      const host = spawnSync('/usr/bin/python3', ['-c', probe], { encoding: 'utf8' });
      assert.match(host.stdout, /^netlink ok$/m, host.stdout + host.stderr);
      assert.match(host.stdout, /^netlink-high-bits ok$/m);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
