/**
 * The progress of running chat turns (`netaclaw_turn_progress`), read by the instances that do not run them
 * (gateway/progress.ts). Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { ensureTable } from './schema';
import { log } from '../../config/log';

const TURN_PROGRESS: TableOptions = {
  name: 'netaclaw_turn_progress',
  columns: [
    { name: 'sessionId', type: 'int', isPrimary: true, comment: '会话 ID' },
    { name: 'token', type: 'varchar', length: '32', comment: '回合标识' },
    { name: 'message', type: 'text', comment: '用户消息' },
    { name: 'events', type: 'json', comment: '回合事件 (有界: 合并的文本增量、工具调用与结果、批次)' },
    { name: 'truncated', type: 'tinyint', default: '0', comment: '有事件未保留' },
    { name: 'endEvent', type: 'json', isNullable: true, comment: '结束事件 (done 或 error)' },
    { name: 'writeTime', type: 'bigint', comment: '最近写入 (epoch ms)' },
    { name: 'endTime', type: 'bigint', isNullable: true, comment: '结束时间 (epoch ms)' },
    { name: 'cancelTime', type: 'bigint', isNullable: true, comment: '请求取消时间 (epoch ms)' },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class TurnProgress1796600000000 implements MigrationInterface {
  name = 'TurnProgress1796600000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, TURN_PROGRESS)) log().info(`[netaclaw] schema turn progress: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(TURN_PROGRESS.name, true);
  }
}
