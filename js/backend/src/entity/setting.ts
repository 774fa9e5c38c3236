import { Column, Entity, PrimaryColumn, UpdateDateColumn, VersionColumn } from 'typeorm';

/**
 * A setting of the whole backend, one row per name, its value JSON: `rules`, the admin's global rules
 * (docs/package.md "Rules"). Every instance on the database reads the same row.
 */
@Entity('netaclaw_setting')
export class NetaClawSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, comment: '名称' })
  name: string;

  @Column({ type: 'json', nullable: true, comment: '值 (JSON)' })
  value: unknown;

  /** 1 when created, +1 at every write; an update that names an older one is refused (409 conflict). */
  @VersionColumn({ comment: '版本号', default: 1 })
  version: number;

  @UpdateDateColumn({ comment: '更新时间' })
  updateTime: Date;
}
