import { MidwayConfig } from '@midwayjs/core';
import { NetaClawDataSource } from '../datasource';
import { dataSourceOptions } from '../dboptions';
import { HOST, JSON_BODY_LIMIT, PORT, TRUST_PROXY } from '../settings';

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
    // the migrations of MySQL/MariaDB (dboptions.ts); Midway drops them unless this is set
    allowExecuteMigrations: true,
    dataSource: {
      default: { ...dataSourceOptions(), customDataSourceClass: NetaClawDataSource },
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
