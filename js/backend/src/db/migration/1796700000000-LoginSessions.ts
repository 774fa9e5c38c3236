/**
 * The pages' login sessions (`netaclaw_login_session`): a logout deletes its row, which every instance on
 * the database checks. Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableOptions } from 'typeorm';
import { log } from '../../config/log';
import { ensureTable } from './schema';

const LOGIN_SESSIONS: TableOptions = {
  name: 'netaclaw_login_session',
  columns: [
    { name: 'id', type: 'varchar', length: '64', isPrimary: true, comment: '会话 Cookie 的 SHA-256' },
    { name: 'keyHash', type: 'varchar', length: '64', comment: '请求密钥的 SHA-256' },
    { name: 'tokenMark', type: 'varchar', length: '64', comment: '管理令牌标记' },
    { name: 'loginTime', type: 'bigint', comment: '登录时间 (epoch ms)' },
    { name: 'seenTime', type: 'bigint', comment: '最近使用 (epoch ms)' },
    { name: 'expireTime', type: 'bigint', comment: '过期时间 (epoch ms)' },
  ],
};

@Provide()
@Scope(ScopeEnum.Singleton)
export class LoginSessions1796700000000 implements MigrationInterface {
  name = 'LoginSessions1796700000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const step of await ensureTable(qr, LOGIN_SESSIONS)) log().info(`[netaclaw] schema login sessions: ${step}`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable(LOGIN_SESSIONS.name, true);
  }
}
