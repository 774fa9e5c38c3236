/**
 * Secrets at rest, the start's step (config/secrets.ts holds the key and the cipher): the stored values
 * are read and the ones still in plain text encrypted, under the sync lock.
 */
import type { DataSource } from 'typeorm';
import {
  API_KEY_COLUMN_CHARS,
  API_KEY_MAX_CHARS,
  CHANNEL_API_KEY,
  decrypt,
  encrypt,
  encryptedKeyId,
  isEncrypted,
  loadSecretKey,
  MCP_ENV,
  SecretKey,
  SecretKeyError,
  safeParse,
  useSecretKey,
} from '../config/secrets';
import { withSyncLock } from './datasource';
import { dbWriteLock } from '../lib/mutex';

interface StoredSecrets {
  keyIds: Set<string>;
  channels: Array<{ id: number; apiKey: string }>;
  mcp: Array<{ id: number; raw: string; env: Record<string, unknown> }>;
}

async function readStored(ds: DataSource): Promise<StoredSecrets> {
  const q = (n: string) => ds.driver.escape(n);
  const out: StoredSecrets = { keyIds: new Set(), channels: [], mcp: [] };
  const note = (v: string) => {
    const id = encryptedKeyId(v);
    if (id !== null) out.keyIds.add(id);
  };
  const channels: Array<{ id: number; apiKey: string | null }> = await ds.query(
    `SELECT ${q('id')} AS id, ${q('apiKey')} AS apiKey FROM ${q('netaclaw_model_channel')} WHERE ${q('apiKey')} IS NOT NULL`
  );
  for (const c of channels) {
    if (typeof c.apiKey !== 'string' || c.apiKey === '') continue;
    note(c.apiKey);
    out.channels.push({ id: Number(c.id), apiKey: c.apiKey });
  }
  const servers: Array<{ id: number; env: unknown }> = await ds.query(
    `SELECT ${q('id')} AS id, ${q('env')} AS env FROM ${q('netaclaw_mcp_server')} WHERE ${q('env')} IS NOT NULL`
  );
  for (const s of servers) {
    const raw = typeof s.env === 'string' ? s.env : JSON.stringify(s.env);
    const env = safeParse(raw);
    if (env === null || typeof env !== 'object' || Array.isArray(env)) continue;
    for (const v of Object.values(env as Record<string, unknown>)) if (typeof v === 'string') note(v);
    out.mcp.push({ id: Number(s.id), raw, env: env as Record<string, unknown> });
  }
  return out;
}

export interface SecretsAtRestReport {
  key: SecretKey;
  /** Values found in plain text and encrypted now. */
  encrypted: number;
}

/**
 * The start's step for secrets at rest (every start, every database kind; under the sync lock, so that
 * instances started together do it once): loads the key (creating the key file only when no stored value
 * is encrypted yet), checks that every encrypted value decrypts under it — else stops with a sentence
 * before anything is written — and encrypts the values still in plain text (rows of an earlier release).
 * Idempotent: a value already encrypted is left as it is. Sets the key the entities use.
 */
export async function secretsAtRest(ds: DataSource): Promise<SecretsAtRestReport> {
  return dbWriteLock.run(() =>
    withSyncLock(ds, 'secrets at rest', async () => {
      const stored = await readStored(ds);
      const key = loadSecretKey(stored.keyIds.size === 0);
      // every encrypted value must decrypt before anything is written
      for (const c of stored.channels) if (isEncrypted(c.apiKey)) decrypt(c.apiKey, CHANNEL_API_KEY, key);
      for (const s of stored.mcp) for (const v of Object.values(s.env)) if (typeof v === 'string' && isEncrypted(v)) decrypt(v, MCP_ENV, key);
      const q = (n: string) => ds.driver.escape(n);
      let encrypted = 0;
      await ds.transaction(async em => {
        for (const c of stored.channels) {
          if (isEncrypted(c.apiKey)) continue;
          const value = encrypt(c.apiKey, CHANNEL_API_KEY, key);
          if (value.length > API_KEY_COLUMN_CHARS) {
            throw new SecretKeyError(
              `model channel ${c.id}: its API key is longer than ${API_KEY_MAX_CHARS} characters, too long to store encrypted; ` +
                'shorten it in the database or delete the channel, then start again (nothing was changed)'
            );
          }
          // updateTime kept: MariaDB's ON UPDATE would otherwise move it, and nothing the user sees changed
          await em.query(
            `UPDATE ${q('netaclaw_model_channel')} SET ${q('apiKey')} = ?, ${q('updateTime')} = ${q('updateTime')} WHERE ${q('id')} = ? AND ${q('apiKey')} = ?`,
            [value, c.id, c.apiKey]
          );
          encrypted += 1;
        }
        for (const s of stored.mcp) {
          let changed = 0;
          const env = Object.fromEntries(
            Object.entries(s.env).map(([k, v]) => {
              if (typeof v !== 'string' || isEncrypted(v)) return [k, v];
              changed += 1;
              return [k, encrypt(v, MCP_ENV, key)];
            })
          );
          if (changed === 0) continue;
          await em.query(`UPDATE ${q('netaclaw_mcp_server')} SET ${q('env')} = ?, ${q('updateTime')} = ${q('updateTime')} WHERE ${q('id')} = ?`, [
            JSON.stringify(env),
            s.id,
          ]);
          encrypted += changed;
        }
      });
      useSecretKey(key);
      return { key, encrypted };
    })
  );
}
