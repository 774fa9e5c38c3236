/**
 * The decision of one network connection for a policy: `decideNetwork(rules, host, port)`.
 *
 * Everything in runtime/net calls this function and nothing else to decide a connection; its answer is
 * the package's (`checkNetwork`): `net(host[:port])` patterns at the global, agent and session levels,
 * deny over ask over allow, no host by default, an IP address reached only through a rule naming it.
 */
import type { LevelRulesInput, NetworkCheck, RuleMatch, RulesInput } from '@netaclaw/tool-policy';
import { errorMessage } from '../../lib/errortext';
import { policy } from '../../wire/policy';

export type NetVerdict = 'allow' | 'ask' | 'deny';
export type NetLevel = 'global' | 'agent' | 'session';

export interface NetDecision {
  verdict: NetVerdict;
  /** The rule that decided (`net(*.example.org:443)`); absent when no rule matched (the default). */
  rule?: string;
  level?: NetLevel;
  /** One sentence for the client, the log and the record. */
  message: string;
  /** The package's rule match (what an approval card shows and an approval for the session names). */
  match?: RuleMatch;
}

const LEVELS: NetLevel[] = ['global', 'agent', 'session'];

/** A host as compared: lower case, no trailing dot, an IPv6 literal without its brackets. */
export function normalHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** `net(host[:port])` → its host and port (null: any), or null when the pattern is no net() rule. */
export function parseNetPattern(pattern: unknown): { host: string; port: number | null } | null {
  if (typeof pattern !== 'string') return null;
  const m = /^net\((.*)\)$/.exec(pattern.trim());
  if (!m) return null;
  const body = m[1].trim();
  let host = body;
  let port: number | null = null;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(body);
  if (bracket) {
    host = bracket[1];
    port = bracket[2] !== undefined ? Number(bracket[2]) : null;
  } else if ((body.match(/:/g) ?? []).length === 1) {
    const [h, p] = body.split(':');
    if (!/^\d+$/.test(p)) return null;
    host = h;
    port = Number(p);
  }
  if (host === '' || (port !== null && (port < 1 || port > 65535))) return null;
  return { host: normalHost(host), port };
}

/** Whether any level holds a net() allow or ask rule (a sandbox then gets the proxy). */
export function wantsNetwork(rules: RulesInput | null | undefined): boolean {
  if (!rules) return false;
  return LEVELS.some(level => {
    const l = rules[level] as LevelRulesInput | null | undefined;
    return [...(l?.allow ?? []), ...(l?.ask ?? [])].some(p => parseNetPattern(p) !== null);
  });
}

/**
 * Decides `host:port` for the rules: the package's `checkNetwork` (docs/package.md, "Network rules"), the
 * same answer the rules editor's "try it" box gives. A host the package cannot read (not a name nor an
 * address, another spelling of an address) is refused with the package's sentence.
 */
export function decideNetwork(rules: RulesInput | null | undefined, host: string, port: number): NetDecision {
  let c: NetworkCheck;
  try {
    c = policy().checkNetwork({ rules: rules ?? null, host, port });
  } catch (err) {
    return { verdict: 'deny', message: `${host}:${port} is refused: ${errorMessage(err)}` };
  }
  const rule = c.rule.pattern ?? undefined;
  const level = c.rule.level ?? undefined;
  const target = `${c.host}:${c.port}`;
  if (!rule) return { verdict: c.decision, match: c.rule, message: `${target} is refused: no net() rule allows it (a sandbox reaches no host by default)` };
  if (c.rule.source?.startsWith('rules.approvals'))
    return { verdict: c.decision, rule, level, match: c.rule, message: `${target} is allowed: ${rule} (approved for this session)` };
  const says = c.decision === 'deny' ? 'refused' : c.decision === 'ask' ? 'waiting for an approval' : 'allowed';
  return { verdict: c.decision, rule, level, match: c.rule, message: `${target} is ${says}: ${rule} (${level} rules)` };
}
