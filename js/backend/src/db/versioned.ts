/**
 * Optimistic concurrency for admin edits: every row has a `version` (1 when created, +1 at every
 * write, kept by TypeORM's @VersionColumn). An update may name the version it was made from; when
 * the row has moved on since, the answer is 409 `conflict` with the current row and nothing is
 * written. An update without `version` writes as before (last writer wins, field by field).
 */
import { EntityManager, ObjectLiteral, Repository } from 'typeorm';
import { conflict, invalidInput } from '../wire/errors';
import { has, Obj } from '../wire/validate';

/** The `version` of an update body: a non-negative integer, or undefined when absent or null. */
export function parseVersion(body: Obj): number | undefined {
  if (!has(body, 'version') || body.version === null) return undefined;
  const v = body.version;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw invalidInput(`version must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** 409 for an update of `what` made from version `sent` of a row that is now `current`. */
export function staleVersion(what: string, sent: number, current: { version: number }) {
  return conflict(`${what} was changed by someone else: you sent version ${sent}, it is now version ${current.version}; nothing was written`, current);
}

/**
 * UPDATE … SET `set` (version + 1) WHERE id = :id, and, with `version`, AND version = :version.
 * False when no row matched (the row is gone, or its version moved on).
 */
export async function updateRow<E extends ObjectLiteral>(repo: Repository<E>, id: number, set: Obj, version: number | undefined): Promise<boolean> {
  const qb = repo
    .createQueryBuilder()
    .update()
    .set(set as never)
    .where('id = :id', { id });
  if (version !== undefined) qb.andWhere('version = :version', { version });
  const result = await qb.execute();
  return (result.affected ?? 0) > 0;
}

/**
 * Find options that lock the rows a transaction reads until it ends (`SELECT … FOR UPDATE`), for a write
 * made from what it read: on MySQL/MariaDB, where writes run side by side (lib/mutex.ts), the second writer
 * waits for the first and reads its result. SQLite has one writer: nothing to add.
 */
export function forUpdate(em: EntityManager): { lock?: { mode: 'pessimistic_write' } } {
  const type = em.connection.options.type;
  return type === 'mysql' || type === 'mariadb' ? { lock: { mode: 'pessimistic_write' } } : {};
}
