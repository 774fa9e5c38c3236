import { MidwayConfig } from '@midwayjs/core';
import { NetaClawAgentEntity } from '../entity/agent';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { NetaClawMessageEntity } from '../entity/message';
import { NetaClawSessionEntity } from '../entity/session';
import { NetaClawMemoryEntity } from '../entity/memory';
import { NetaClawSubagentBatchEntity } from '../entity/batch';
import { NetaClawToolCallEntity } from '../entity/toolcall';
import { NetaClawToolEntity } from '../entity/tool';
import { NetaClawDataSource } from '../datasource';
import { DB, HOST, JSON_BODY_LIMIT, PORT, TRUST_PROXY } from '../settings';

const entities = [
  NetaClawToolEntity,
  NetaClawAgentEntity,
  NetaClawModelChannelEntity,
  NetaClawSessionEntity,
  NetaClawMessageEntity,
  NetaClawSubagentBatchEntity,
  NetaClawToolCallEntity,
  NetaClawMemoryEntity,
];

function dataSource() {
  if (DB.kind === 'sqlite') {
    return {
      type: 'better-sqlite3',
      customDataSourceClass: NetaClawDataSource,
      database: DB.path,
      synchronize: true,
      logging: false,
      entities,
    };
  }
  return {
    type: DB.type,
    customDataSourceClass: NetaClawDataSource,
    connectorPackage: 'mysql2',
    host: DB.host,
    port: DB.port,
    username: DB.user,
    password: DB.password,
    database: DB.database,
    charset: 'utf8mb4',
    synchronize: true,
    logging: false,
    entities,
  };
}

export default {
  // Only used to sign cookies, which this API does not use; Midway requires it to be set.
  keys: 'netaclaw-backend',
  koa: {
    port: PORT,
    hostname: HOST,
    proxy: TRUST_PROXY,
  },
  bodyParser: {
    enableTypes: ['json'],
    jsonLimit: JSON_BODY_LIMIT,
    strict: true,
  },
  siteFile: { enable: false },
  // The WebSocket server shares the HTTP port (the chat gateway at /ws/netaclaw/chat); a message is at
  // most 1 MB, like a REST body.
  webSocket: {
    maxPayload: 1024 * 1024,
    enableServerHeartbeatCheck: true,
    serverHeartbeatInterval: 30000,
  },
  typeorm: {
    dataSource: {
      default: dataSource(),
    },
  },
  midwayLogger: {
    default: {
      level: 'info',
      transports: {
        console: { autoColors: false },
        file: false,
        error: false,
      },
    },
    clients: {
      coreLogger: { level: 'warn' },
      appLogger: { level: 'info' },
    },
  },
} as MidwayConfig;
