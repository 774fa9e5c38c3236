/**
 * The network of one sandbox (docs/runtime.md "Network"). A sandbox keeps its own, empty network
 * namespace (bwrap `--unshare-all`: only `lo`, which bwrap brings up). When its rules allow or ask about
 * any host (`wantsNetwork`), the backend starts a proxy for it (proxy.ts; one listener per sandbox, in the
 * backend's process, deciding with that sandbox's rules) on a Unix socket in a fresh private folder, and
 * the sandbox gets:
 * - the socket bound at /run/netaclaw/net.sock (the only way out);
 * - a loopback bridge, the first process inside (`bridgeCommand`): it listens on 127.0.0.1:3128 in the
 *   sandbox's own namespace, forwards each connection to the socket, and `exec`s the sandbox's command;
 * - the proxy settings every usual client reads from the environment (`NET_ENV`): HTTP(S)_PROXY and
 *   ALL_PROXY (both cases), npm's and pip's, git's `http.proxy` (GIT_CONFIG_*), and Node's own.
 * Nothing else leaves: no resolver is reachable (the namespace has no route, DNS is the proxy's), a
 * direct connection (`NO_PROXY`, a client that ignores the settings) fails with no route, and seccomp
 * refuses raw and other socket families (confine.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { RulesInput } from '@netaclaw/tool-policy';
import { wantsNetwork } from './decide';
import { NetHooks, NetProxy } from './proxy';
import { NET_ENV, SANDBOX_NET_SOCKET, SANDBOX_PROXY_PORT } from './env';

export { NET_ENV, SANDBOX_NET_SOCKET, SANDBOX_PROXY_PORT };

/**
 * The bridge (run by the system's python3, which the sandbox always has: confine.ts needs it): binds
 * 127.0.0.1:PORT, forks a child that forwards every connection to the socket (one thread, `select`, so
 * that it takes no share of the sandbox's process limit), and the parent `exec`s the command. The child
 * keeps no descriptor of the sandbox's (stdio → /dev/null), so the command's output ends with it.
 */
export const BRIDGE = `
import os, select, socket, sys
port, sock, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(('127.0.0.1', port))
l.listen(128)
if os.fork() != 0:
    l.close()
    os.execv(argv[0], argv)
null = os.open('/dev/null', os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
keep = {0, 1, 2, l.fileno()}
for name in os.listdir('/proc/self/fd'):
    fd = int(name)
    if fd not in keep:
        try: os.close(fd)
        except OSError: pass
l.setblocking(False)
peer, buf, eof = {}, {}, set()
def drop(s):
    for x in (s, peer.get(s)):
        if x is None: continue
        peer.pop(x, None); buf.pop(x, None); eof.discard(x); x.close()
def settle(s):
    # s's peer has ended: once all it sent is written to s, s's write side ends; both ended → closed
    o = peer.get(s)
    if o in eof and not buf[s]:
        try: s.shutdown(socket.SHUT_WR)
        except OSError: pass
        if s in eof and not buf[o]: drop(s)
while True:
    rl = [l] + [s for s in peer if s not in eof and not buf[peer[s]]]
    wl = [s for s in peer if buf[s]]
    r, w, _ = select.select(rl, wl, [])
    for s in w:
        if s not in peer: continue
        try:
            buf[s] = buf[s][s.send(buf[s]):]
        except BlockingIOError:
            continue
        except OSError:
            drop(s); continue
        settle(s)
    for s in r:
        if s is l:
            try: c, _ = l.accept()
            except OSError: continue
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try: u.connect(sock)
            except OSError:
                c.close(); u.close(); continue
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            c.setblocking(False); u.setblocking(False)
            peer[c] = u; peer[u] = c; buf[c] = b''; buf[u] = b''
            continue
        if s not in peer: continue
        o = peer[s]
        try: d = s.recv(65536)
        except BlockingIOError: continue
        except OSError: d = b''
        if not d:
            eof.add(s)
            settle(o)
            continue
        try:
            n = o.send(d)
        except BlockingIOError:
            n = 0
        except OSError:
            drop(s); continue
        buf[o] = d[n:]
`;

export interface SandboxNet {
  /** bwrap arguments: the socket's bind and the proxy settings. */
  bwrapArgs: string[];
  /** The environment's proxy settings (for a sandbox whose environment is given at spawn). */
  env: Record<string, string>;
  /** The sandbox's command, started behind the bridge. */
  wrap: (command: string[]) => string[];
  proxy: NetProxy;
  /** Stops the proxy and removes its socket (once the sandbox has ended). */
  close: () => Promise<void>;
}

/**
 * The network of a sandbox about to start: null when its rules reach no host (the sandbox stays without
 * any network); else a proxy listening on a socket in a fresh folder below `dir` (a folder the sandbox's
 * user can pass through: the confinement's), which the sandbox's user may connect to.
 */
export async function openSandboxNet(rules: RulesInput | null | undefined, hooks: NetHooks = {}, dir: string = os.tmpdir()): Promise<SandboxNet | null> {
  if (!wantsNetwork(rules)) return null;
  const folder = fs.mkdtempSync(path.join(dir, 'net-'));
  fs.chmodSync(folder, 0o711);
  const socket = path.join(folder, 'net.sock');
  const proxy = new NetProxy(rules ?? null, hooks);
  try {
    await proxy.listen(socket);
    // the sandbox's user (another uid when the backend is root) connects to it
    fs.chmodSync(socket, 0o666);
  } catch (err) {
    await proxy.close().catch(() => undefined);
    fs.rmSync(folder, { recursive: true, force: true });
    throw err;
  }
  const bwrapArgs = ['--bind', socket, SANDBOX_NET_SOCKET];
  for (const [k, v] of Object.entries(NET_ENV)) bwrapArgs.push('--setenv', k, v);
  return {
    bwrapArgs,
    env: { ...NET_ENV },
    wrap: command => ['/usr/bin/python3', '-c', BRIDGE, String(SANDBOX_PROXY_PORT), SANDBOX_NET_SOCKET, ...command],
    proxy,
    close: async () => {
      await proxy.close().catch(() => undefined);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
