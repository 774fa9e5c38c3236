import { Column, Entity, Index, VersionColumn } from 'typeorm';
import type { LevelRulesInput } from '../wire/api-types';
import { BaseEntity } from './base';

/** An agent, with its tool authorisation (seed 001, Task 2): `toolsets` + `tools.disabled`. */
@Entity('netaclaw_agent')
export class NetaClawAgentEntity extends BaseEntity {
  @Index()
  @Column({ type: 'varchar', comment: '名称', length: 100 })
  name: string;

  @Column({ type: 'text', comment: '系统提示词', nullable: true })
  systemPrompt: string | null;

  @Column({ type: 'varchar', comment: '模型能力（无模型渠道时使用）', length: 20, nullable: true })
  modelCapability: string | null;

  @Column({ type: 'boolean', comment: '是否启用记忆', default: false })
  memoryEnabled: boolean;

  @Column({ type: 'json', comment: '绑定的 skill 列表', nullable: true })
  skills: string[] | null;

  @Column({ type: 'varchar', comment: 'Crew 角色', length: 20, nullable: true })
  crewRole: string | null;

  @Column({ type: 'json', comment: '启用的 toolset 列表', nullable: true })
  toolsets: string[] | null;

  @Column({ type: 'json', comment: '工具精细配置', nullable: true })
  tools: { disabled?: string[] } | null;

  /** The model channel; null = the default channel. */
  @Column({ type: 'int', comment: '模型渠道 ID（空 = 默认渠道）', nullable: true })
  modelChannelId: number | null;

  /** 子 Agent 允许工具: the tools its sub-agents may use; null = every tool the agent gets. */
  @Column({ type: 'json', comment: '子 Agent 允许工具（空 = 全部）', nullable: true })
  subagentTools: string[] | null;

  /** 团队成员: the agents this agent may delegate a task to by name (`delegate_task`'s `agent`); null = none. */
  @Column({ type: 'json', comment: '团队成员 agent ID 列表', nullable: true })
  crewMembers: number[] | null;

  /** 规则: the agent's allow / ask / deny patterns and default (docs/package.md "Rules"); null = none. */
  @Column({ type: 'json', comment: 'Agent 规则（allow / ask / deny）', nullable: true })
  rules: LevelRulesInput | null;

  /** 1 when created, +1 at every write; an update that names an older one is refused (409 conflict). */
  @VersionColumn({ comment: '版本号', default: 1 })
  version: number;
}

export const AGENT_FIELDS = [
  'name',
  'systemPrompt',
  'modelCapability',
  'memoryEnabled',
  'skills',
  'crewRole',
  'toolsets',
  'tools',
  'modelChannelId',
  'subagentTools',
  'crewMembers',
  'rules',
] as const;
