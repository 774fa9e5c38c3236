/**
 * The data source options of the backend, read from the environment (settings.ts): the server's
 * (configuration.ts) and TypeORM's CLI (db/cli-datasource.ts) use the same ones.
 *
 * Schema: on MySQL/MariaDB the migrations of `src/db/migration/` run at every start (under the sync lock all
 * instances share, datasource.ts) and the schema sync is off. On SQLite, the single-instance default, the
 * schema sync (`synchronize`) stays: js/backend/README.md "Schema" says why.
 */
import { NetaClawApprovalEntity } from '../entity/approval';
import { NetaClawNetDecisionEntity } from '../entity/netdecision';
import type { DataSourceOptions } from 'typeorm';
import { NetaClawMcpServerEntity } from '../entity/mcp';
import { NetaClawAgentEntity } from '../entity/agent';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { NetaClawMessageEntity } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { NetaClawMemoryEntity } from '../entity/memory';
import { NetaClawSubagentBatchEntity } from '../entity/batch';
import { NetaClawToolCallEntity } from '../entity/toolcall';
import { NetaClawToolEntity } from '../entity/tool';
import { NetaClawTodoListEntity } from '../entity/todo';
import { NetaClawEscalationEntity } from '../entity/escalation';
import { NetaClawTurnProgressEntity } from '../entity/turnprogress';
import { NetaClawLoginSessionEntity } from '../entity/login';
import { NetaClawSettingEntity } from '../entity/setting';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migration';
import { DB, SQLITE_BUSY_TIMEOUT_MS } from '../config/settings';

export const ENTITIES = [
  NetaClawToolEntity,
  NetaClawAgentEntity,
  NetaClawModelChannelEntity,
  NetaClawSessionEntity,
  NetaClawMessageEntity,
  NetaClawSubagentBatchEntity,
  NetaClawToolCallEntity,
  NetaClawMemoryEntity,
  NetaClawMcpServerEntity,
  NetaClawTodoListEntity,
  NetaClawEscalationEntity,
  NetaClawTurnProgressEntity,
  NetaClawLoginSessionEntity,
  NetaClawSettingEntity,
  NetaClawApprovalEntity,
  NetaClawNetDecisionEntity,
];

export function dataSourceOptions(): DataSourceOptions {
  if (DB.kind === 'sqlite') {
    return {
      type: 'better-sqlite3',
      database: DB.path,
      // WAL: another process may read the file (a backup, a report) while the backend writes, and the
      // backend's writes never wait for such a reader. The busy timeout: a write that finds the file
      // locked by another process waits up to this long instead of failing with SQLITE_BUSY.
      enableWAL: true,
      timeout: SQLITE_BUSY_TIMEOUT_MS,
      synchronize: true,
      logging: false,
      entities: ENTITIES,
    };
  }
  return {
    type: DB.type,
    connectorPackage: 'mysql2',
    host: DB.host,
    port: DB.port,
    username: DB.user,
    password: DB.password,
    database: DB.database,
    charset: 'utf8mb4',
    synchronize: false,
    migrationsRun: true,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    // DDL commits on its own on MySQL/MariaDB: one migration at a time, each one safe to run again
    migrationsTransactionMode: 'each',
    logging: false,
    entities: ENTITIES,
  };
}
