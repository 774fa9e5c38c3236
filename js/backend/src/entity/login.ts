import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A login session of the pages (src/http/login-session.ts): one row per login, deleted by its logout, so that every
 * instance on one database sees a logout at once. The cookie's secret and the page's request key are kept
 * only as SHA-256 hashes: a copy of the table opens no session.
 */
@Entity('netaclaw_login_session')
export class NetaClawLoginSessionEntity {
  /** SHA-256 (hex) of the cookie's secret. */
  @PrimaryColumn({ type: 'varchar', length: 64, comment: '会话 Cookie 的 SHA-256' })
  id: string;

  /** SHA-256 (hex) of the request key the page sends with every request (X-Netaclaw-Request-Key). */
  @Column({ type: 'varchar', length: 64, comment: '请求密钥的 SHA-256' })
  keyHash: string;

  /** An HMAC of the admin token the login was made with: a new admin token ends the session. */
  @Column({ type: 'varchar', length: 64, comment: '管理令牌标记' })
  tokenMark: string;

  @Column({ type: 'bigint', comment: '登录时间 (epoch ms)' })
  loginTime: number | string;

  /** Last use (epoch ms), written at most every few seconds (session.ts): the idle timeout counts from it. */
  @Column({ type: 'bigint', comment: '最近使用 (epoch ms)' })
  seenTime: number | string;

  /** The absolute end (epoch ms): the login time plus 12 hours. */
  @Column({ type: 'bigint', comment: '过期时间 (epoch ms)' })
  expireTime: number | string;
}
