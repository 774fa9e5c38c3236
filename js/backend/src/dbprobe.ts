import { DbSettings } from './settings';

/**
 * With DB_TYPE=mysql, asks the server what it is. TypeORM must be told `mariadb` for a MariaDB server:
 * in `mysql` mode its schema sync misreads MariaDB's JSON (a LONGTEXT alias) and nullable defaults and
 * re-creates those columns at every start, losing the JSON data.
 */
export async function detectMysqlFlavor(db: Extract<DbSettings, { kind: 'mysql' }>): Promise<'mysql' | 'mariadb'> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
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
