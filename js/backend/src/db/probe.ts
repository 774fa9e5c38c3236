import { backoffDelay, sleepUnlessStopped } from './backoff';
import { isDatabaseUnavailable } from './health';
import { DbSettings, describeDb } from '../config/settings';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';

type MysqlSettings = Extract<DbSettings, { kind: 'mysql' }>;

/**
 * Waits (up to `waitSeconds`, retrying with backoff, cut short by SIGTERM) until the MySQL/MariaDB
 * server accepts a connection, then asks it what it is. TypeORM must be told `mariadb` for a MariaDB
 * server: in `mysql` mode its schema sync misreads MariaDB's JSON (a LONGTEXT alias) and nullable
 * defaults and re-creates those columns at every start, losing the JSON data — so a start never
 * guesses the flavour of a server it could not reach: it fails.
 */
export async function waitForMysql(db: MysqlSettings, waitSeconds: number): Promise<'mysql' | 'mariadb'> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (let attempt = 0; ; attempt++) {
    try {
      return await detectMysqlFlavor(db);
    } catch (err) {
      const left = deadline - Date.now();
      if (!isDatabaseUnavailable(err) || left <= 0) {
        throw new Error(`cannot reach ${describeDb(db)}: ${errorMessage(err)}`);
      }
      const delay = Math.min(left, backoffDelay(attempt, 5000));
      if (attempt === 0) {
        log().error(`[netaclaw] ${describeDb(db)} not reachable yet (${errorMessage(err)}); retrying for up to ${waitSeconds} s`);
      }
      await sleepUnlessStopped(delay, 'waiting for the database');
    }
  }
}

async function detectMysqlFlavor(db: MysqlSettings): Promise<'mysql' | 'mariadb'> {
  const mysql = require('mysql2/promise');
  const conn = await mysql.createConnection({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    connectTimeout: 10000,
  });
  try {
    const [rows] = await conn.query('SELECT VERSION() AS v');
    return /mariadb/i.test(String(rows[0]?.v ?? '')) ? 'mariadb' : 'mysql';
  } finally {
    await conn.end();
  }
}
