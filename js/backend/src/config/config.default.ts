import { MidwayConfig } from '@midwayjs/core';
import { NetaClawDataSource } from '../datasource';
import { dataSourceOptions } from '../dboptions';
import { logFormatOptions } from '../log';
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
  // Request DTOs (src/dto/): a refused body is a 400 invalid_input naming the field (filter/error.ts,
  // worded by dto/rules.ts). No conversion (a string is not taken for a number or a boolean), unknown
  // members are left to the service (which ignores them), the first problem is the one reported.
  validate: {
    errorStatus: 400,
    validationOptions: { convert: false, allowUnknown: true, abortEarly: true },
  },
  // The validation messages are the backend's (dto/rules.ts): no locale from the request, no cookie.
  i18n: { writeCookie: false, resolver: false },
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
  // Every line of the backend goes through these loggers (log.ts), to stdout (errors to stderr): Midway's
  // text format, or JSON lines with LOG_FORMAT=json.
  midwayLogger: {
    default: {
      level: 'info',
      ...logFormatOptions(),
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
