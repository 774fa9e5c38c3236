import { Rule, RuleType } from '@midwayjs/validate';
import { TEXT_MAX_CHARS } from '../wire/validate';
import { bool, id, list, nonBlank, nullable, required, stringList, text } from './rules';

/** The most agents one crew lists. */
export const CREW_MAX = 20;

/**
 * The fields of an agent a request may set (AgentInput). `modelCapability` and `crewRole` have no rule
 * here: their values are the package's vocabularies, checked by the service through the package (so are
 * the patterns of `rules`); which
 * names `subagentTools` may hold is the catalog's, and `tools` holds only `disabled` (the service says so).
 */
export class AgentFieldsDTO {
  @Rule(nonBlank(100))
  name?: string;

  @Rule(nullable(text(TEXT_MAX_CHARS)))
  systemPrompt?: string | null;

  modelCapability?: unknown;

  @Rule(nullable(bool()))
  memoryEnabled?: boolean | null;

  @Rule(nullable(stringList()))
  skills?: string[] | null;

  crewRole?: unknown;

  @Rule(nullable(stringList()))
  toolsets?: string[] | null;

  @Rule(nullable(RuleType.object({ disabled: nullable(stringList()) })))
  tools?: { disabled?: string[] | null; [other: string]: unknown } | null;

  @Rule(nullable(id()))
  modelChannelId?: number | string | null;

  @Rule(nullable(stringList()))
  subagentTools?: string[] | null;

  @Rule(nullable(list(id(), CREW_MAX)))
  crewMembers?: Array<number | string> | null;

  /** The agent's rules: their patterns are the package's to check (RulesService's `checkedRules`). */
  rules?: unknown;
}

/** POST /admin/netaclaw/agent/add (and each agent of the demo seed). */
export class AgentAddDTO extends AgentFieldsDTO {
  @Rule(required(nonBlank(100)))
  name: string;
}

/** POST /admin/netaclaw/agent/update: `id`, the fields to change, and the `version` they were made from. */
export class AgentUpdateDTO extends AgentFieldsDTO {
  @Rule(required(id()))
  id: number | string;

  version?: unknown;
}
