/**
 * The decision of one network connection for a policy: `decideNetwork(rules, host, port)`.
 *
 * THE ONE PLACE the package's own network decision replaces: everything in runtime/net calls this
 * function and nothing else to decide a connection, and the tests go through it, so that swapping its
 * body for the package's export changes no caller. Until then it implements the intended semantics
 * minimally: `net(host[:port])` patterns in `rules.<level>.allow/ask/deny` — an exact host, `*.suffix`
 * (any name below the suffix, not the suffix itself), an optional `:port` (none: any port), an IPv6
 * literal in brackets — deny over ask over allow across the three levels, and no host by default.
 */
import type { LevelRulesInput, RulesInput } from '@netaclaw/tool-policy';

export type NetVerdict = 'allow' | 'ask' | 'deny';
export type NetLevel = 'global' | 'agent' | 'session';

export interface NetDecision {
  verdict: NetVerdict;
  /** The rule that decided (`net(*.example.org:443)`); absent when no rule matched (the default). */
  rule?: string;
  level?: NetLevel;
  /** One sentence for the client, the log and the record. */
  message: string;
}

const LEVELS: NetLevel[] = ['global', 'agent', 'session'];
const ORDER: NetVerdict[] = ['deny', 'ask', 'allow'];

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

function matches(p: { host: string; port: number | null }, host: string, port: number): boolean {
  if (p.port !== null && p.port !== port) return false;
  if (p.host.startsWith('*.')) {
    const suffix = p.host.slice(1);
    return host.endsWith(suffix) && host.length > suffix.length;
  }
  return p.host === host;
}

/** Whether any level holds a net() allow or ask rule (a sandbox then gets the proxy). */
export function wantsNetwork(rules: RulesInput | null | undefined): boolean {
  if (!rules) return false;
  return LEVELS.some(level => {
    const l = rules[level] as LevelRulesInput | null | undefined;
    return [...(l?.allow ?? []), ...(l?.ask ?? [])].some(p => parseNetPattern(p) !== null);
  });
}

/** Decides `host:port` for the rules (see the file's comment). */
export function decideNetwork(rules: RulesInput | null | undefined, host: string, port: number): NetDecision {
  const h = normalHost(host);
  const target = `${h.includes(':') ? `[${h}]` : h}:${port}`;
  for (const verdict of ORDER) {
    for (const level of LEVELS) {
      const l = rules?.[level] as LevelRulesInput | null | undefined;
      for (const pattern of l?.[verdict] ?? []) {
        const p = parseNetPattern(pattern);
        if (!p || !matches(p, h, port)) continue;
        const rule = (pattern as string).trim();
        // an `ask` the session already approved ("allow for this session") is allowed
        if (verdict === 'ask' && (rules?.approvals ?? []).some(a => typeof a === 'string' && a.trim() === rule)) {
          return { verdict: 'allow', rule, level, message: `${target} is allowed: ${rule} (${level} rules) asks, and this session approved it` };
        }
        const says = verdict === 'deny' ? 'refused' : verdict === 'ask' ? 'waiting for an approval' : 'allowed';
        return { verdict, rule, level, message: `${target} is ${says}: ${rule} (${level} rules)` };
      }
    }
  }
  return { verdict: 'deny', message: `${target} is refused: no net() rule allows it (a sandbox reaches no host by default)` };
}

/**
 * The rules without their net() patterns, for the package's other decisions (path rules) until the
 * package reads `net()` itself: goes with `decideNetwork`'s body when it is replaced.
 */
export function withoutNetRules(rules: RulesInput): RulesInput {
  const isNet = (p: unknown) => parseNetPattern(p) !== null;
  const lists = (l: LevelRulesInput | null | undefined) => [l?.allow, l?.ask, l?.deny];
  const any = [...LEVELS.flatMap(level => lists(rules[level] as LevelRulesInput | null | undefined)), rules.approvals].some(list => (list ?? []).some(isNet));
  if (!any) return rules;
  const out = structuredClone(rules);
  for (const level of LEVELS) {
    const l = out[level] as LevelRulesInput | null | undefined;
    if (!l) continue;
    for (const key of ['allow', 'ask', 'deny'] as const) {
      const list = l[key];
      if (list) l[key] = list.filter(p => !isNet(p));
    }
  }
  if (out.approvals) out.approvals = out.approvals.filter(p => !isNet(p));
  return out;
}
