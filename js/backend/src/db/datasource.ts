/**
 * The TypeORM data source of the backend (configuration.ts: `customDataSourceClass`). Same as
 * TypeORM's, plus:
 * - the migrations (MySQL/MariaDB) and the schema sync (`synchronize`, SQLite) run under the
 *   cross-instance sync lock, so instances started at the same moment on one MySQL/MariaDB database do
 *   not race to create tables and indexes;
 * - while the database monitor says the database is gone, every query fails at once with
 *   DatabaseUnavailableError (→ 503) instead of waiting for a connection attempt of its own;
 * - `ping()` is the monitor's probe;
 * - it sets the write gate (lib/mutex.ts): parallel writes on MySQL/MariaDB, one writer on SQLite.
 */
import * as crypto from 'crypto';
import { DataSource, DataSourceOptions, Migration, QueryRunner, ReplicationMode } from 'typeorm';
import { DatabaseBusyError, DatabaseUnavailableError, dbMonitor, isWriteContention } from './health';
import { dbWriteLock } from '../lib/mutex';
import { DB_LOCK_TIMEOUT_SECONDS } from '../config/settings';
import { log } from '../config/log';

export class NetaClawDataSource extends DataSource {
  constructor(options: DataSourceOptions) {
    super(options);
    dbMonitor.attach(() => this.ping());
    // MySQL/MariaDB: writes run in parallel, each on a connection of its own; SQLite keeps one writer
    if (isMysql(this)) dbWriteLock.parallel(isWriteContention);
    else dbWriteLock.single();
  }

  createQueryRunner(mode: ReplicationMode = 'master'): QueryRunner {
    if (dbMonitor.current === 'down') {
      throw new DatabaseUnavailableError(`the database is unavailable; reconnecting (next attempt in ${dbMonitor.retryAfterSeconds()} s)`);
    }
    return super.createQueryRunner(mode);
  }

  /** `SELECT 1` on a connection of its own (never refused by the down state). */
  async ping(): Promise<void> {
    const qr = super.createQueryRunner('master');
    try {
      await qr.query('SELECT 1');
    } finally {
      await qr.release();
    }
  }

  async synchronize(dropBeforeSync = false): Promise<void> {
    await withSyncLock(this, 'schema sync', () => super.synchronize(dropBeforeSync));
  }

  /**
   * The migrations (MySQL/MariaDB, at start): under the sync lock, so that instances started together
   * run each migration once; the others find it recorded and run nothing.
   */
  async runMigrations(options?: Parameters<DataSource['runMigrations']>[0]): Promise<Migration[]> {
    return withSyncLock(this, 'schema migrations', async () => {
      const ran = await super.runMigrations(options);
      log().info(
        ran.length === 0
          ? '[netaclaw] schema: up to date (no migration to run)'
          : `[netaclaw] schema: ran ${ran.length} migration(s): ${ran.map(m => m.name).join(', ')}`
      );
      return ran;
    });
  }

  async destroy(): Promise<void> {
    dbMonitor.stop();
    await super.destroy();
  }
}

function isMysql(ds: DataSource): boolean {
  return ds.options.type === 'mysql' || ds.options.type === 'mariadb';
}

/**
 * The name of the MySQL/MariaDB user lock (`GET_LOCK`) that serialises schema and catalog syncs of
 * all instances on one database: `netaclaw_sync:<database>` (a hash of the name when that would be
 * longer than the server's 64-character limit).
 */
export function syncLockName(database: string): string {
  const name = `netaclaw_sync:${database}`;
  return name.length <= 64 ? name : `netaclaw_sync:${crypto.createHash('sha256').update(database).digest('hex').slice(0, 48)}`;
}

/**
 * Runs `fn` holding the sync lock (MySQL/MariaDB; SQLite has one writer per file and the in-process
 * dbWriteLock). Waits up to DB_LOCK_TIMEOUT_SECONDS for another instance to finish, saying so once.
 */
export async function withSyncLock<T>(ds: DataSource, what: string, fn: () => Promise<T>): Promise<T> {
  if (!isMysql(ds)) return fn();
  const name = syncLockName(String(ds.options.database ?? ''));
  const qr = ds.createQueryRunner();
  try {
    const take = async (seconds: number) => {
      const rows = await qr.query('SELECT GET_LOCK(?, ?) AS got', [name, seconds]);
      return Number(rows?.[0]?.got) === 1;
    };
    if (!(await take(0))) {
      log().info(`[netaclaw] ${what}: waiting for lock ${name} (another instance is syncing)`);
      if (!(await take(DB_LOCK_TIMEOUT_SECONDS))) {
        throw new DatabaseBusyError(`${what}: lock ${name} still held by another instance after ${DB_LOCK_TIMEOUT_SECONDS} s`);
      }
    }
    try {
      return await fn();
    } finally {
      await qr.query('SELECT RELEASE_LOCK(?)', [name]).catch(() => undefined);
    }
  } finally {
    await qr.release();
  }
}
