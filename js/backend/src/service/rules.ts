import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import type { CheckRulesInput, LevelRulesInput, RuleCheck, RulesInput, WorkerPolicy } from '@netaclaw/tool-policy';
import { Repository } from 'typeorm';
import type { GlobalRules, GlobalRulesView } from '../wire/api-types';
import { NetaClawAgentEntity } from '../entity/agent';
import { NetaClawSessionEntity } from '../entity/session';
import { NetaClawSettingEntity } from '../entity/setting';
import { AppError, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';
import { policy } from '../wire/policy';
import { forUpdate, staleVersion } from '../db/versioned';

/** The row of `netaclaw_setting` that holds the global rules. */
const GLOBAL_RULES = 'rules';

type Level = 'global' | 'agent' | 'session';

/**
 * Rules of one level checked by the package (its patterns parsed as a call would read them): the value as
 * given, or a 400 `invalid_input` whose message is the package's (`rules.agent.deny[2]: has an unknown
 * kind "fetch" …`) and whose `errors[0].field` is the pattern's path, so a page marks the pattern itself.
 */
export function checkedRules<T extends LevelRulesInput>(value: unknown, level: Level): T | null {
  if (value === undefined || value === null) return null;
  checkRulesInput({ [level]: value });
  return value as T;
}

/** A session's approvals ("allow for this session" patterns), checked by the package like rules. */
export function checkedApprovals(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  checkRulesInput({ approvals: value as string[] });
  return value as string[];
}

function checkRulesInput(rules: unknown): void {
  try {
    policy().checkRules({ rules: rules as RulesInput, tool: 'read_file' });
  } catch (err) {
    throw ruleError(err);
  }
}

/** The package's `invalid_input` about rules as the backend's 400, naming the pattern's path as the field. */
function ruleError(err: unknown): unknown {
  const e = err as Error & { code?: string };
  if (e?.code !== 'invalid_input') return err;
  const message = String(e.message);
  const field = /^(rules\.[A-Za-z]+(?:\.[A-Za-z]+)?(?:\[\d+\])?)/.exec(message)?.[1];
  return new AppError(400, 'invalid_input', message, field ? [{ field, code: 'invalid_rule' }] : undefined);
}

/**
 * One level's rules at least as strict as each of two (a crew member's own, and those of the agent that
 * delegated to it): every `deny` and `ask` pattern of both, the stronger `default` (the package's order of
 * effects), and of the `allow` patterns — exceptions to a level's own default — those that every side with
 * a default of `ask` or `deny` also allows. A host (`net(…)`) is denied unless a rule allows it, whatever
 * the default: its `allow` patterns are kept only when both sides allow them. Whatever either level asks
 * or denies, the result asks or denies too: a child never gets what its parent denied or asks for.
 */
export function narrowest(a: LevelRulesInput | null | undefined, b: LevelRulesInput | null | undefined): LevelRulesInput | null {
  if (!a) return b ?? null;
  if (!b) return a;
  const effects = policy().ruleDefaults().effects;
  const strength = (e: LevelRulesInput['default']) => (e ? effects.indexOf(e) : -1);
  const restricts = (l: LevelRulesInput, pattern: string) => strength(l.default) > 0 || pattern.startsWith('net(');
  const union = (x?: string[] | null, y?: string[] | null) => [...new Set([...(x ?? []), ...(y ?? [])])];
  const out: LevelRulesInput = {};
  const candidates = union(a.allow, b.allow);
  const allow = candidates.filter(p => [a, b].every(l => !restricts(l, p) || (l.allow ?? []).includes(p)));
  if (allow.length > 0) out.allow = allow;
  const ask = union(a.ask, b.ask);
  if (ask.length > 0) out.ask = ask;
  const deny = union(a.deny, b.deny);
  if (deny.length > 0) out.deny = deny;
  const stronger = strength(a.default) >= strength(b.default) ? a.default : b.default;
  if (stronger) out.default = stronger;
  return out;
}

/** What `try` answers for: exactly one of a tool name, a command, a path read or written, a host (`host[:port]`). */
export interface RulesTryInput {
  agentId?: number | null;
  sessionId?: number | null;
  /** Unsaved edits: each level given replaces the stored one. */
  rules?: { global?: GlobalRules | null; agent?: LevelRulesInput | null; session?: LevelRulesInput | null } | null;
  policy?: WorkerPolicy | null;
  tool?: string;
  command?: string;
  read?: string;
  write?: string;
  net?: string;
}

/**
 * The rules of every level (docs/package.md "Rules"): the admin's global rules (one row of
 * `netaclaw_setting`), an agent's (`netaclaw_agent.rules`), a session's and its approvals
 * (`netaclaw_session.rules` / `.approvals`). It stores and reads them; the package decides.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class RulesService {
  @InjectEntityModel(NetaClawSettingEntity)
  settings: Repository<NetaClawSettingEntity>;

  @InjectEntityModel(NetaClawAgentEntity)
  agents: Repository<NetaClawAgentEntity>;

  @InjectEntityModel(NetaClawSessionEntity)
  sessions: Repository<NetaClawSessionEntity>;

  /** The stored global rules (null when none), what the editor offers, and the version read (0: never written). */
  async info(): Promise<GlobalRulesView> {
    const row = await this.settings.findOneBy({ name: GLOBAL_RULES });
    return { rules: (row?.value as GlobalRules | null | undefined) ?? null, defaults: policy().ruleDefaults(), version: row?.version ?? 0 };
  }

  /**
   * Replaces the global rules. With `version` (what `info` answered), rules changed since → 409 conflict
   * and nothing written; 0 names "never written".
   */
  async update(input: { rules?: unknown; version?: number }): Promise<GlobalRulesView> {
    const rules = checkedRules<GlobalRules>(input.rules, 'global');
    // read and written in one transaction holding the row (MySQL/MariaDB: writers run side by side; without
    // `version` the last writer wins, and every write lands). Two first writes at once: the one the database
    // chose as a deadlock's victim runs again (dbWriteLock) and finds the row.
    await dbWriteLock.run(() =>
      this.settings.manager.transaction(async em => {
        const row = await em.findOne(NetaClawSettingEntity, { where: { name: GLOBAL_RULES }, ...forUpdate(em) });
        const current = row?.version ?? 0;
        if (input.version !== undefined && input.version !== current) throw staleVersion('the global rules', input.version, await this.info());
        if (!row) {
          await em.insert(NetaClawSettingEntity, { name: GLOBAL_RULES, value: rules as never, version: 1 });
          return;
        }
        const done = await em
          .createQueryBuilder()
          .update(NetaClawSettingEntity)
          .set({ value: rules } as never)
          .where('name = :name', { name: GLOBAL_RULES })
          .andWhere('version = :version', { version: current })
          .execute();
        if ((done.affected ?? 0) === 0) throw staleVersion('the global rules', input.version ?? current, await this.info());
      })
    );
    return this.info();
  }

  /** The global rules as stored (null when none). */
  async global(): Promise<GlobalRules | null> {
    return (await this.info()).rules;
  }

  /**
   * The rules a session's calls are decided with: the global rules, the agent's, the session's and its
   * approvals; levels with nothing are left out. For another agent than the session's own (a crew member
   * a delegated task runs), the agent level is the narrowest of the member's rules and those of the
   * session's agent, which delegated (`narrowest`).
   */
  async effective(agentId: number | null | undefined, sessionId: number | null | undefined): Promise<RulesInput> {
    const out: RulesInput = {};
    const global = await this.global();
    if (global) out.global = global;
    let agentRules: LevelRulesInput | null = null;
    if (agentId !== undefined && agentId !== null) {
      const agent = await this.agents.findOneBy({ id: agentId });
      if (!agent) throw notFound(`agent ${agentId} not found`);
      agentRules = agent.rules;
    }
    if (sessionId !== undefined && sessionId !== null) {
      const session = await this.sessions.findOneBy({ id: sessionId });
      if (!session) throw notFound(`session ${sessionId} not found`);
      if (agentId !== undefined && agentId !== null && session.agentId !== agentId) {
        const parent = await this.agents.findOneBy({ id: session.agentId });
        agentRules = narrowest(agentRules, parent?.rules);
      }
      if (session.rules) out.session = session.rules;
      if (session.approvals && session.approvals.length > 0) out.approvals = session.approvals;
    }
    if (agentRules) out.agent = agentRules;
    return out;
  }

  /** "Try it": the package's `checkRules` with the effective rules, each level replaced by an unsaved edit when given. */
  async try(input: RulesTryInput): Promise<RuleCheck> {
    const rules = await this.effective(input.agentId, input.sessionId);
    for (const level of ['global', 'agent', 'session'] as const) {
      const edit = input.rules?.[level];
      if (edit === undefined) continue;
      if (edit === null) delete rules[level];
      else rules[level] = checkedRules(edit, level) ?? undefined;
    }
    const subject: Record<string, string> = {};
    for (const k of ['tool', 'command', 'read', 'write', 'net'] as const) if (input[k] !== undefined) subject[k] = input[k] as string;
    try {
      return policy().checkRules({ rules, ...(input.policy ? { policy: input.policy } : {}), ...subject } as CheckRulesInput);
    } catch (err) {
      throw ruleError(err);
    }
  }

  /** Whether a chat session with this id exists. */
  async sessionExists(sessionId: number): Promise<boolean> {
    return (await this.sessions.countBy({ id: sessionId })) > 0;
  }

  /** Adds "allow for this session" patterns to a session's approvals (each once, in order). */
  async approve(sessionId: number, patterns: string[]): Promise<string[]> {
    checkedApprovals(patterns);
    // read and written in one transaction holding the row (MySQL/MariaDB: writers run side by side, and
    // two answers of one session at once must both land)
    return dbWriteLock.run(() =>
      this.sessions.manager.transaction(async em => {
        const session = await em.findOne(NetaClawSessionEntity, { where: { id: sessionId }, ...forUpdate(em) });
        if (!session) throw notFound(`session ${sessionId} not found`);
        const approvals = [...(session.approvals ?? [])];
        for (const p of patterns) if (!approvals.includes(p)) approvals.push(p);
        await em.update(NetaClawSessionEntity, { id: sessionId }, { approvals });
        return approvals;
      })
    );
  }
}
