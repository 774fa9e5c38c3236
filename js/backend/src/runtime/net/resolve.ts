/**
 * Where the proxy connects for a host name: the addresses of the operator's hosts file
 * (NETACLAW_NET_HOSTS_FILE, the /etc/hosts format, read at each lookup — the tests name their loopback
 * servers there, so that they never reach an outside address), else the system's resolver (Node's
 * `dns.lookup`). A sandbox never resolves anything itself: it has no resolver it could reach.
 *
 * An address the system's resolver gives that points back at this host (loopback, unspecified,
 * link-local) is refused: a public name made to resolve to 127.0.0.1 would otherwise reach the backend's
 * own ports. The hosts file is the operator's: its addresses are used as written.
 */
import * as dns from 'dns';
import * as fs from 'fs';
import * as net from 'net';

export interface Resolved {
  address: string;
  family: 4 | 6;
  /** Where the address came from (for the record). */
  via: 'literal' | 'hosts-file' | 'dns';
}

/** The hosts file's address for `host` (its first line naming it), or null. */
export function hostsFileLookup(host: string, file = process.env.NETACLAW_NET_HOSTS_FILE): string | null {
  if (!file || file.trim() === '') return null;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const want = host.toLowerCase();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const [address, ...names] = line.split(/\s+/);
    if (net.isIP(address) && names.some(n => n.toLowerCase() === want)) return address;
  }
  return null;
}

/** An address of this host itself (loopback, unspecified, link-local). */
export function isLocalAddress(address: string): boolean {
  if (net.isIPv4(address)) return /^(127\.|0\.|169\.254\.)/.test(address);
  const a = address.toLowerCase();
  if (a.startsWith('::ffff:')) return isLocalAddress(a.slice(7));
  return a === '::1' || a === '::' || /^fe[89ab]/.test(a);
}

/** The address to connect to for `host` (throws with a sentence when it has none). */
export async function resolveHost(host: string): Promise<Resolved> {
  const kind = net.isIP(host);
  if (kind) return { address: host, family: kind as 4 | 6, via: 'literal' };
  const listed = hostsFileLookup(host);
  if (listed) return { address: listed, family: net.isIP(listed) as 4 | 6, via: 'hosts-file' };
  let found: dns.LookupAddress;
  try {
    found = await dns.promises.lookup(host, { verbatim: true });
  } catch (err) {
    throw new Error(`${host} has no address (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
  if (isLocalAddress(found.address)) throw new Error(`${host} resolves to ${found.address}, an address of this host itself: refused`);
  return { address: found.address, family: found.family as 4 | 6, via: 'dns' };
}
