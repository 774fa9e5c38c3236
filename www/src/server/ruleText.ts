// What the rules editor and the "try it" box say, in the page's language: the package's refusal of a
// pattern, where a rule sits (its `source`), and a `checkRules` answer as sentences. The package speaks
// English in its messages and has no labels for effects, levels and pattern kinds; the page's words for
// them are in i18n.ts (`rules`), keyed by the values `ruleDefaults()` lists.
import { locale, t } from '../base/i18n';
import { L } from './policy';
import type { RuleCheck, RulesInput } from './policy';

export function effectWord(effect: string): string {
  return t.value.rules.effects[effect] ?? effect;
}

export function levelWord(level: string): string {
  return t.value.rules.levelShort[level] ?? level;
}

export function kindWord(kind: string): string {
  return t.value.rules.kinds[kind] ?? kind;
}

/**
 * The sentence of a pattern the package refuses, from its message (the part after the path,
 * `has an unknown kind "fetch" (…)`): each message of `Pattern::parse` has its sentence; any other says the
 * rule is not valid. Never the English message itself on a Chinese page.
 */
export function ruleErrorSentence(message: string): string {
  const e = t.value.rules.errors;
  let m: RegExpExecArray | null;
  const host = hostErrorSentence(message);
  if (host) return host;
  if (/must not be empty|at least 1 character/.test(message)) return e.empty;
  if ((m = /longer than (\d+)|at most (\d+)/.exec(message))) return e.tooLong(m[1] ?? m[2]);
  if (/NUL character/.test(message)) return e.nul;
  if ((m = /unknown kind "((?:[^"\\]|\\.)*)"/.exec(message))) return e.unknownKind(m[1]);
  if (/must be a tool name, or kind/.test(message)) return e.shape;
  if (/mcp:<server>\/<tool>/.test(message)) return e.mcp;
  if (/tool pattern may hold/.test(message)) return e.toolChars;
  if (/bash pattern names a command/.test(message)) return e.bashEmpty;
  if (/bash pattern is one simple command/.test(message)) return e.bashSimple;
  if (/command name may not hold \*/.test(message)) return e.bashStar;
  if (/path pattern names a path/.test(message)) return e.pathEmpty;
  if (/UNC path/.test(message)) return e.unc;
  if (/no empty, \. or \.\. segment/.test(message)) return e.segment;
  if (/\*\* must be a whole segment/.test(message)) return e.doubleStar;
  return e.other;
}

/**
 * The sentence of a host the package refuses, in a `net(…)` pattern (`a net pattern has a port …`) or in
 * the "try it" box (`net: must write an IPv6 address in brackets …`); null for any other message.
 */
export function hostErrorSentence(message: string): string | null {
  const e = t.value.rules.errors;
  if (!/^(?:net: |a net pattern )|: a net pattern /.test(message)) return null;
  if (/IPv6 address in brackets/.test(message)) return e.netIpv6;
  if (/has a port/.test(message)) return e.netPort;
  if (/is not ASCII/.test(message)) return e.netAscii;
  if (/IP address in another spelling/.test(message)) return e.netIpSpelling;
  if (/has \* only/.test(message)) return e.netStar;
  return e.netHost;
}

/** Where a rule sits, as a phrase: `rules.agent.deny[2]` → the third item of the agent's deny list. */
export function sourcePhrase(source: string, rules: RulesInput | null): string {
  const r = t.value.rules;
  const m = /^rules\.(\w+)(?:\.(\w+))?(?:\[(\d+)\])?$/.exec(source);
  if (!m) return source;
  const [, level, list, index] = m;
  const n = index === undefined ? 0 : Number(index) + 1;
  if (list === undefined && index !== undefined) return r.inApprovals(n);
  if (list === 'protectedPaths') return r.inProtected(n, rules?.global?.protectedPaths == null);
  const levelName = r.levels[level] ?? level;
  if (list === 'default') return r.inDefault(levelName);
  if (list !== undefined && index !== undefined) return r.inList(levelName, effectWord(list), n);
  return source;
}

export interface CheckSentences {
  decision: string;
  /** Which rule decided (or that none did), as a sentence. */
  rule: string;
  /** What the rule matched, when one did. */
  subject: string | null;
  /** The reason code's label (a rule's deny, a path outside every root). */
  reason: string | null;
}

/** A `checkRules` answer as the "try it" box says it. */
export function checkSentences(check: RuleCheck, rules: RulesInput | null): CheckSentences {
  const r = t.value.rules;
  const decision = r.decisions[check.decision] ?? check.decision;
  const reason = check.reason ? r.reason(L('reasons', check.reason)) : null;
  const rule = check.rule;
  if (!rule) return { decision, rule: check.reason ? '' : r.noRule, subject: null, reason };
  const subject = r.subject(kindWord(rule.kind), rule.subject);
  // a host no net() rule allows: the package's default, no level and no reader involved
  if (rule.source === null && rule.unreadable === null) return { decision, rule: r.noHostRule, subject, reason };
  if (rule.source === null) {
    // the reader's English words are said as they are in English, translated in Chinese
    const known = rule.unreadable === null ? undefined : locale.value === 'en' ? rule.unreadable : r.unreadableWhy[rule.unreadable];
    const why = known ?? r.unreadableOther;
    return { decision, rule: r.unreadable(why), subject, reason };
  }
  const where = sourcePhrase(rule.source, rules);
  return { decision, rule: rule.pattern === null ? r.byDefault(where) : r.byRule(where, rule.pattern), subject, reason };
}
