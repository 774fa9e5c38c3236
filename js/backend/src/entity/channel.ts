import { Column, Entity, Index } from 'typeorm';
import { BaseEntity } from './base';
import { CHANNEL_API_KEY, secretString } from '../config/secrets';

/**
 * A model channel (seed 001 Task 7 step 3): an OpenAI-compatible `/chat/completions` endpoint, its key,
 * its model and what that model can see (`capability`). Exactly one channel is the default whenever
 * there is at least one; an agent without `modelChannelId` uses it.
 */
@Entity('netaclaw_model_channel')
export class NetaClawModelChannelEntity extends BaseEntity {
  @Index({ unique: true })
  @Column({ type: 'varchar', comment: '名称', length: 100 })
  name: string;

  @Column({ type: 'varchar', comment: 'OpenAI 兼容接口地址', length: 500 })
  baseUrl: string;

  /** Stored encrypted (src/config/secrets.ts), plain in memory; never sent back (see channelView). */
  @Column({ type: 'varchar', comment: 'API Key', length: 1000, nullable: true, transformer: secretString(CHANNEL_API_KEY) })
  apiKey: string | null;

  @Column({ type: 'varchar', comment: '模型名', length: 200 })
  model: string;

  @Column({ type: 'varchar', comment: '模型能力', length: 20, default: 'text' })
  capability: string;

  @Index()
  @Column({ type: 'boolean', comment: '是否默认渠道', default: false })
  isDefault: boolean;
}
