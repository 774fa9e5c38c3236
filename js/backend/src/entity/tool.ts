import { Column, Entity, Index, VersionColumn } from 'typeorm';
import { BaseEntity } from './base';

/**
 * Global tool governance table (seed 001, Task 1): one column per `ToolGovernanceRow` field. Which
 * fields are mirror fields (owned by the code catalog, rewritten by the sync) and which are human fields
 * (owned by the admin) is the package's `catalogInfo()` (service/tool.ts `rowFields`).
 */
@Entity('netaclaw_tool')
export class NetaClawToolEntity extends BaseEntity {
  @Index({ unique: true })
  @Column({ type: 'varchar', comment: 'Tool 名称', length: 100 })
  name: string;

  @Column({ type: 'varchar', comment: '展示名', length: 200, nullable: true })
  label: string | null;

  @Index()
  @Column({ type: 'varchar', comment: '所属 toolset', length: 50 })
  toolset: string;

  @Column({ type: 'text', comment: '描述', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', comment: '可见性', length: 20, nullable: true })
  visibility: string | null;

  @Column({ type: 'varchar', comment: '能力要求', length: 20, nullable: true })
  capability: string | null;

  @Index()
  @Column({ type: 'int', comment: '状态 0=禁用 1=启用', default: 1 })
  status: number;

  @Column({ type: 'int', comment: '是否核心工具', default: 0 })
  isCore: number;

  @Column({ type: 'int', comment: '是否允许禁用', default: 1 })
  canDisable: number;

  @Column({ type: 'text', comment: 'Prompt Hint 覆写', nullable: true })
  promptHint: string | null;

  @Column({ type: 'int', comment: '排序', default: 0 })
  sort: number;

  @Column({ type: 'json', comment: '扩展字段', nullable: true })
  extra: unknown;

  @Column({ type: 'varchar', comment: 'Worker 路由策略', length: 40, default: 'auto' })
  workerRoutingStrategy: string;

  /** 1 when created, +1 at every write; an update that names an older one is refused (409 conflict). */
  @VersionColumn({ comment: '版本号', default: 1 })
  version: number;
}
