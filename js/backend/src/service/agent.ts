import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectEntityModel } from '@midwayjs/typeorm';
import { Repository } from 'typeorm';
import { NetaClawAgentEntity } from '../entity/agent';
import { invalidInput, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';
import { activeCatalog, Capability, CrewRole, policy } from '../wire/policy';
import { has, Obj, optEnum, parseId, requireObject } from '../wire/validate';
import { ValidateService } from '@midwayjs/validate';
import { AgentAddDTO, AgentFieldsDTO, AgentUpdateDTO } from '../dto/agent';
import { checkedBy } from '../dto/check';
import { IdQueryDTO } from '../dto/query';
import { SessionFieldsDTO } from '../dto/session';
import { AgentPageDTO } from '../dto/page';
import { ChannelService } from './channel';
import { SkillService } from './skill';
import { parseVersion, staleVersion, updateRow } from '../db/versioned';
import { checkedRules } from './rules';
import { AgentFields, newAgentFields } from '../wire/api-types';

/** The package's vocabularies of the agent's enum fields. */
function vocabulary() {
  return policy().catalogInfo().vocabulary;
}

/** The agent columns an AgentInput may set. */
export type AgentValues = Partial<AgentFields>;

/**
 * The tools an agent's sub-agents may use: null (all the agent gets), or names of the backend's catalog,
 * each once (400 naming the first that is not).
 */
function checkSubagentTools(tools: string[] | null | undefined): string[] | null | undefined {
  if (!tools) return tools;
  const catalog = activeCatalog() ?? null;
  const seen = new Set<string>();
  tools.forEach((name, i) => {
    if (policy().getToolSchema(name, catalog) === null) {
      throw invalidInput(`subagentTools[${i}]: no tool of the catalog is named ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) throw invalidInput(`subagentTools[${i}]: ${JSON.stringify(name)} is listed twice`);
    seen.add(name);
  });
  return tools;
}

/**
 * The columns a validated AgentInput sets (AgentFieldsDTO checked its shape; absent keys are left out,
 * keys that are not agent fields — id, createTime, … — are ignored). The capability and crew role are
 * checked against the package's vocabularies, the sub-agent tools against the catalog.
 */
export function agentValues(o: AgentFieldsDTO): AgentValues {
  const v: AgentValues = {};
  if (o.name !== undefined) v.name = o.name;
  if (o.systemPrompt !== undefined) v.systemPrompt = o.systemPrompt;
  const cap = optEnum(o as unknown as Obj, 'modelCapability', vocabulary().capability);
  if (cap !== undefined) v.modelCapability = cap;
  if (o.memoryEnabled !== undefined) v.memoryEnabled = o.memoryEnabled ?? false;
  if (o.skills !== undefined) v.skills = o.skills ?? [];
  const role = optEnum(o as unknown as Obj, 'crewRole', vocabulary().crewRole);
  if (role !== undefined) v.crewRole = role;
  if (o.toolsets !== undefined) v.toolsets = o.toolsets;
  if (o.tools !== undefined) {
    if (o.tools === null) {
      v.tools = null;
    } else {
      for (const k of Object.keys(o.tools)) {
        if (k !== 'disabled') throw invalidInput(`tools.${k} is not supported (only tools.disabled)`);
      }
      v.tools = o.tools.disabled !== undefined && o.tools.disabled !== null ? { disabled: o.tools.disabled } : {};
    }
  }
  if (o.modelChannelId !== undefined) v.modelChannelId = o.modelChannelId === null ? null : Number(o.modelChannelId);
  const subagentTools = checkSubagentTools(o.subagentTools);
  if (subagentTools !== undefined) v.subagentTools = subagentTools;
  if (o.crewMembers !== undefined) {
    const ids = (o.crewMembers ?? []).map(Number);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i) throw invalidInput(`crewMembers[${i}]: agent ${id} is listed twice`);
    });
    v.crewMembers = o.crewMembers === null ? null : ids;
  }
  if (o.rules !== undefined) v.rules = checkedRules(o.rules, 'agent');
  return v;
}

/** The session part of a diagnostic input. */
export interface SessionFields {
  subagentTools?: string[] | null;
  sessionCwd?: string | null;
  workspaceRoots?: string[] | null;
  shellPermitted?: boolean;
  writePermitted?: boolean;
}

const SESSION_KEYS = ['subagentTools', 'sessionCwd', 'workspaceRoots', 'shellPermitted', 'writePermitted'] as const;

/** The session fields of a checked request (SessionFieldsDTO), absent ones left out. */
export function sessionFields(o: SessionFieldsDTO): SessionFields {
  const out: Obj = {};
  for (const k of SESSION_KEYS) if (o[k] !== undefined) out[k] = o[k];
  return out as SessionFields;
}

/** An agent as the resolver sees it (row or draft), with every field defaulted. */
export interface AgentView extends Omit<AgentFields, 'name'> {
  /** The stored agent's id; undefined for a draft. */
  id?: number;
  name: string | null;
}

function agentView(a: AgentValues | NetaClawAgentEntity): AgentView {
  return {
    id: (a as NetaClawAgentEntity).id,
    name: a.name ?? null,
    systemPrompt: a.systemPrompt ?? null,
    modelCapability: (a.modelCapability as Capability | null | undefined) ?? null,
    memoryEnabled: !!a.memoryEnabled,
    skills: a.skills ?? [],
    crewRole: (a.crewRole as CrewRole | null | undefined) ?? null,
    toolsets: a.toolsets ?? null,
    tools: a.tools ?? null,
    modelChannelId: a.modelChannelId ?? null,
    subagentTools: a.subagentTools ?? null,
    crewMembers: a.crewMembers ?? null,
    rules: a.rules ?? null,
  };
}

@Provide()
@Scope(ScopeEnum.Singleton)
export class AgentService {
  @Inject()
  validateService: ValidateService;

  @InjectEntityModel(NetaClawAgentEntity)
  repo: Repository<NetaClawAgentEntity>;

  @Inject()
  channelService: ChannelService;

  @Inject()
  skillService: SkillService;

  /**
   * `seeded`: an example agent of the seed file, whose skills are not checked against the skills folder
   * (the demo installs its example skills beside its agents; a skill installed later is found then).
   */
  async add(input: AgentAddDTO, seeded = false): Promise<NetaClawAgentEntity> {
    const v = agentValues(input);
    if (!seeded) await this.skillService.check(v.skills);
    if (v.modelChannelId) await this.channelService.checkExists(v.modelChannelId, 'modelChannelId');
    await this.checkCrew(v.crewMembers, null);
    const entity = this.repo.create({ ...newAgentFields(), ...v });
    const saved = await dbWriteLock.run(() => this.repo.save(entity));
    return this.mustGet(saved.id);
  }

  async info(query: IdQueryDTO): Promise<NetaClawAgentEntity> {
    return this.mustGet(Number(query.id));
  }

  /**
   * Writes only the fields present in the body. With `version`, an agent that changed since that
   * version → 409 conflict and nothing written.
   */
  async update(input: AgentUpdateDTO): Promise<NetaClawAgentEntity> {
    const id = Number(input.id);
    const v = agentValues(input);
    const version = parseVersion(input as unknown as Obj);
    const row = await this.mustGet(id);
    // the skills the agent binds already stay bound even when their folder is gone
    await this.skillService.check(v.skills, row.skills ?? []);
    if (v.modelChannelId) await this.channelService.checkExists(v.modelChannelId, 'modelChannelId');
    await this.checkCrew(v.crewMembers, id);
    if (version !== undefined && version !== row.version) throw staleVersion(`agent ${id}`, version, row);
    if (Object.keys(v).length > 0 && !(await dbWriteLock.run(() => updateRow(this.repo, id, v as Obj, version)))) {
      // the agent moved on between the read above and the write, or is gone (404)
      const current = await this.mustGet(id);
      if (version !== undefined) throw staleVersion(`agent ${id}`, version, current);
    }
    return this.mustGet(id);
  }

  /** A crew lists existing agents, other than the agent itself, with names unique within the crew (400 naming the first that is not). */
  private async checkCrew(ids: number[] | null | undefined, self: number | null): Promise<void> {
    const names = new Map<string, number>();
    for (const [i, id] of (ids ?? []).entries()) {
      if (id === self) throw invalidInput(`crewMembers[${i}]: an agent cannot be a member of its own crew`);
      const row = await this.repo.findOneBy({ id });
      if (!row) throw invalidInput(`crewMembers[${i}]: no agent with id ${id}`);
      if (names.has(row.name)) throw invalidInput(`crewMembers[${i}]: two members are named ${JSON.stringify(row.name)}; a task names its member by name`);
      names.set(row.name, id);
    }
  }

  /** The agents of an agent's crew, in the crew's order (members deleted since are left out). */
  async crewOf(agent: AgentView): Promise<AgentView[]> {
    const out: AgentView[] = [];
    for (const id of agent.crewMembers ?? []) {
      const row = await this.repo.findOneBy({ id });
      if (row) out.push(agentView(row));
    }
    return out;
  }

  async page(input: AgentPageDTO) {
    const page = input.page ?? 1;
    const size = input.size ?? 20;
    const name = input.name;
    const qb = this.repo.createQueryBuilder('a');
    if (name !== undefined && name !== null && name !== '') {
      qb.andWhere("a.name LIKE :name ESCAPE '!'", { name: `%${name.replace(/[!%_]/g, c => '!' + c)}%` });
    }
    qb.orderBy('a.id', 'ASC')
      .skip((page - 1) * size)
      .take(size);
    const [list, total] = await qb.getManyAndCount();
    return { list, pagination: { page, size, total } };
  }

  /** A draft agent of a request (`agent`), checked as the body of POST /agent/add would be, less the name. */
  checkDraft(value: unknown): AgentFieldsDTO {
    requireObject(value, 'agent');
    return checkedBy(this.validateService, AgentFieldsDTO, value);
  }

  /**
   * The agent named by a request: `agent` (a draft AgentInput) when given, else the stored agent
   * `idKey`. `optional` allows neither (a legacy agent with every default).
   */
  async agentFromRequest(body: Obj, idKey: string, optional: boolean): Promise<AgentView> {
    if (has(body, 'agent') && body.agent !== null) {
      return agentView(agentValues(this.checkDraft(body.agent)));
    }
    if (has(body, idKey) && body[idKey] !== null) {
      return agentView(await this.mustGet(parseId(body[idKey], idKey)));
    }
    if (optional) return agentView({});
    throw invalidInput(`${idKey} or agent is required`);
  }

  async mustGetView(id: number): Promise<AgentView> {
    return agentView(await this.mustGet(id));
  }

  private async mustGet(id: number): Promise<NetaClawAgentEntity> {
    const row = await this.repo.findOneBy({ id });
    if (!row) throw notFound(`no agent with id ${id}`);
    if (row.skills === null) row.skills = [];
    return row;
  }
}
