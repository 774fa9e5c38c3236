import { App, Configuration, ILifeCycle, ILogger, IMidwayContainer, Inject, Logger, MidwayConfig } from '@midwayjs/core';
import * as koa from '@midwayjs/koa';
import * as typeorm from '@midwayjs/typeorm';
import * as validate from '@midwayjs/validate';
import * as ws from '@midwayjs/ws';
import * as fs from 'fs';
import { NetaClawDataSource } from './db/datasource';
import { dataSourceOptions } from './db/options';
import { logFormatOptions } from './config/log';
import { EnvelopeFilter } from './filter/envelope';
import { ErrorFilter } from './filter/error';
import { AuthMiddleware } from './middleware/auth';
import { CorsMiddleware } from './middleware/cors';
import { SecurityHeadersMiddleware } from './middleware/headers';
import { JsonBodyMiddleware } from './middleware/json';
import { StaticMiddleware } from './middleware/static';
import { AdminTokenService } from './service/token';
import { CatalogService } from './service/catalog';
import { SeedService } from './service/seed';
import { ChannelService } from './service/channel';
import { ChatGateway } from './gateway/chat';
import { SubagentService } from './service/subagent';
import { ToolService } from './service/tool';
import { McpService } from './service/mcp';
import { bus } from './bus/bus';
import { sharedFailureCounter } from './bus/limiter';
import { shareFailures } from './http/authlimit';
import { startRuntime } from './runtime';
import { waitForMysql } from './db/probe';
import { secureDataFiles } from './config/datafiles';
import { secretsAtRest } from './db/secrets-at-rest';
import {
  AUTH_FAIL_LIMIT,
  AUTH_FAIL_WINDOW_SECONDS,
  DB,
  DB_WAIT_SECONDS,
  DEMO_MODEL,
  describeDb,
  HOST,
  JSON_BODY_LIMIT,
  MODEL_ENV,
  PORT,
  STATIC_DIR,
  SEED_FILE,
  TRUST_PROXY,
} from './config/settings';
import { errorMessage } from './lib/errortext';

/**
 * The framework's configuration (Midway: koa, body parser, validation, WebSocket, TypeORM, loggers), from
 * the settings (config/settings.ts).
 */
const frameworkConfig = {
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
    // the migrations of MySQL/MariaDB (db/options.ts); Midway drops them unless this is set
    allowExecuteMigrations: true,
    dataSource: {
      default: { ...dataSourceOptions(), customDataSourceClass: NetaClawDataSource },
    },
  },
  // Every line of the backend goes through these loggers (config/log.ts), to stdout (errors to stderr): Midway's
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

@Configuration({
  imports: [koa, ws, typeorm, validate],
  importConfigs: [{ default: frameworkConfig }],
})
export class MainConfiguration implements ILifeCycle {
  @App('koa')
  app: koa.Application;

  @App('webSocket')
  wsApp: ws.Application;

  @Inject()
  adminToken: AdminTokenService;

  @Inject()
  koaFramework: koa.Framework;

  @Logger()
  logger: ILogger;

  async onConfigLoad() {
    // Before the data source opens: the data folder exists, 0700, with the SQLite file (created 0600, so
    // that its -wal and -shm follow) and the token file 0600 (datafiles.ts).
    const tightened = secureDataFiles();
    if (tightened.length > 0) this.logger.info(`[netaclaw] data folder made private: ${tightened.join(', ')}`);
    if (DB.kind === 'mysql') {
      // waits for the server (DB_WAIT_SECONDS) and, with DB_TYPE=mysql, learns whether it is MariaDB
      const flavor = await waitForMysql(DB, DB_WAIT_SECONDS);
      if (DB.type === 'mysql' && flavor === 'mariadb') {
        this.logger.info('[netaclaw] MariaDB server detected: using TypeORM mariadb mode');
        return { typeorm: { dataSource: { default: { type: 'mariadb' } } } };
      }
    }
    return undefined;
  }

  async onReady(container: IMidwayContainer) {
    // Outermost first: security headers (on every answer, errors included), CORS (a preflight carries
    // no token), auth, then the JSON content-type check, all before the body parser. (The casts:
    // insertFirst is typed for untyped middlewares; these are the same class middlewares useMiddleware takes.)
    type FirstMiddleware = Parameters<ReturnType<koa.Application['getMiddleware']>['insertFirst']>[0];
    this.app.getMiddleware().insertFirst(JsonBodyMiddleware as unknown as FirstMiddleware);
    this.app.getMiddleware().insertFirst(AuthMiddleware as unknown as FirstMiddleware);
    this.app.getMiddleware().insertFirst(CorsMiddleware as unknown as FirstMiddleware);
    this.app.getMiddleware().insertFirst(SecurityHeadersMiddleware as unknown as FirstMiddleware);
    this.app.useMiddleware(StaticMiddleware);
    this.app.useFilter([ErrorFilter, EnvelopeFilter]);
    // The runtime (runtime/index.ts): the sandbox chosen and probed, the tool registry, the MCP servers'
    // connections. Built once, before anything that runs a call is made, which is handed it
    // (`@Inject('runtimeEnv')`).
    const runtime = await startRuntime();
    container.registerObject('runtimeEnv', runtime);
    container.registerObject('clock', runtime.clock);
    // The chat WebSocket: upgrades are checked (path, token) before the handshake; each connection is
    // handed to the gateway at once, so no message sent right after the handshake is missed.
    const gateway = await container.getAsync(ChatGateway);
    this.wsApp.onWebSocketUpgrade((req, socket) => gateway.authorizeUpgrade(req, socket));
    this.wsApp.on('connection', (socket, req) => gateway.attach(socket, req));

    this.logger.info(`[netaclaw] storage: ${describeDb()}`);
    // Secrets at rest (secrets.ts): before anything reads or writes a channel or an MCP server.
    try {
      const { key, encrypted } = await secretsAtRest((await container.getAsync(ChannelService)).dataSource);
      this.logger.info(
        `[netaclaw] secrets at rest: AES-256-GCM, key ${key.id} ` +
          (key.source === 'env' ? '(from NETACLAW_SECRET_KEY)' : key.source === 'created' ? `(created in ${key.file})` : `(from ${key.file})`) +
          (encrypted > 0 ? `; ${encrypted} stored value(s) encrypted now` : '')
      );
    } catch (err) {
      this.logger.error(`[netaclaw] start FAILED: secrets at rest: ${errorMessage(err)}`);
      throw err;
    }
    let catalog;
    try {
      catalog = (await container.getAsync(CatalogService)).load();
      // the catalog file's tools with an implementation join the runtime's registry (service/ only reads the file)
      runtime.registerImplementations(catalog.implementations);
    } catch (err) {
      this.logger.error(`[netaclaw] start FAILED: ${errorMessage(err)}`);
      throw err;
    }
    this.logger.info(
      catalog.file === null
        ? `[netaclaw] catalog: ${catalog.schemas.length} builtin tools`
        : `[netaclaw] catalog: ${catalog.schemas.length - catalog.custom.length} builtin tools + ${catalog.custom.length} from ` +
            `${catalog.file} (${catalog.custom.join(', ')})`
    );
    const tools = await container.getAsync(ToolService);
    try {
      const r = await tools.sync();
      this.logger.info(
        `[netaclaw] catalog sync: ${r.inserts} inserts, ${r.updates} updates, ${r.orphans.length} orphans` +
          (r.orphans.length ? ` (${r.orphans.join(', ')})` : '')
      );
    } catch (err) {
      this.logger.error(`[netaclaw] catalog sync FAILED, table left unchanged: ${errorMessage(err)}`);
      throw err;
    }
    const channels = await container.getAsync(ChannelService);
    if (MODEL_ENV) {
      try {
        const { action, channel } = await channels.applyEnv(MODEL_ENV);
        this.logger.info(
          `[netaclaw] model channel ${JSON.stringify(channel.name)} (id ${channel.id}, default) ${action} from NETACLAW_MODEL_*: ` +
            `${channel.baseUrl} model ${channel.model}, capability ${channel.capability}, key ${channel.hasApiKey ? 'set' : 'none'}`
        );
      } catch (err) {
        this.logger.error(`[netaclaw] start FAILED: ${errorMessage(err)}`);
        throw err;
      }
    } else if ((await channels.count()) === 0) {
      this.logger.info(
        (DEMO_MODEL
          ? '[netaclaw] no model channel: agents converse with the built-in demonstration model (NETACLAW_DEMO_MODEL=1) until one is configured '
          : '[netaclaw] no model channel: chat answers no_model_channel until one is configured ') +
          '(NETACLAW_MODEL_BASE_URL + NETACLAW_MODEL, or POST /admin/netaclaw/channel/add)'
      );
    }
    if (SEED_FILE) {
      // example agents (the demo): only into an empty agent table
      try {
        const added = await (await container.getAsync(SeedService)).seed(SEED_FILE);
        this.logger.info(
          added > 0
            ? `[netaclaw] seeded ${added} example agents from ${SEED_FILE} (the agent table was empty)`
            : `[netaclaw] not seeding ${SEED_FILE}: the agent table has agents`
        );
      } catch (err) {
        this.logger.error(`[netaclaw] start FAILED: ${errorMessage(err)}`);
        throw err;
      }
    }
    this.adminToken.get();

    const stale = await (await container.getAsync(SubagentService)).failStale();
    if (stale > 0) this.logger.info(`[netaclaw] ${stale} batch(es) left running by a previous start marked failed`);

    // the sandbox chosen at start, said here with the rest of the start's account
    const shell = runtime.sandbox;
    const c = shell.confinement;
    if (c) {
      this.logger.info(
        `[netaclaw] shell sandbox: ${shell.mode}, as user ${c.identity.user} (uid ${c.identity.uid}), seccomp on; workers and shell commands run inside it (${shell.detail})`
      );
      this.logger.info(`[netaclaw] sandbox limits: ${c.limits.mode}: ${c.limits.detail}`);
      if (c.limits.weaker.length > 0) this.logger.warn(`[netaclaw] WARNING sandbox limits weaker than per-sandbox cgroups: ${c.limits.weaker.join(', ')}`);
    } else {
      this.logger.warn(`[netaclaw] WARNING shell sandbox: ${shell.mode.toUpperCase()} (${shell.detail})`);
      this.logger.warn("[netaclaw] WARNING workers run under Node's permission model alone (no OS sandbox)");
    }

    // MCP servers: their tools join the catalog (after the sandbox is known: stdio servers run in it)
    const mcp = await container.getAsync(McpService);
    const mcpSeed = process.env.NETACLAW_MCP_SEED_FILE;
    if (mcpSeed) {
      const added = await mcp.seed(mcpSeed);
      if (added > 0) this.logger.info(`[netaclaw] seeded ${added} example MCP server(s) from ${mcpSeed} (the MCP server table was empty)`);
    }
    // the bus of the instances on one MySQL/MariaDB database (REDIS_URL): connected in the background, the
    // database path meanwhile
    bus.start();
    shareFailures(sharedFailureCounter(bus, AUTH_FAIL_LIMIT, AUTH_FAIL_WINDOW_SECONDS));
    // this instance's own start: the others are not asked to refresh; then it follows theirs (`watch`)
    await mcp.watch();
    const listed = await mcp.refreshHere();
    for (const s of listed.servers) {
      if (s.state.status === 'connected') this.logger.info(`[netaclaw] MCP server ${s.name}: ${s.state.tools.length} tools (${s.state.tools.join(', ')})`);
      else if (s.state.status === 'failed') this.logger.warn(`[netaclaw] WARNING MCP server ${s.name}: ${s.state.error}`);
    }
  }

  async onStop(container: IMidwayContainer) {
    await (await container.getAsync(McpService)).closeAll();
    await bus.close();
  }

  async onServerReady() {
    // Midway starts listen() without awaiting it: announce the URL only once the socket is bound.
    const server = this.koaFramework.getServer();
    if (server && !server.listening) {
      await new Promise<void>((resolve, reject) => {
        server.once('listening', () => resolve());
        server.once('error', reject);
      });
    }
    const shownHost = HOST === '0.0.0.0' || HOST === '::' ? 'localhost' : HOST.includes(':') ? `[${HOST}]` : HOST;
    const port = process.env.MIDWAY_HTTP_PORT;
    const t = this.adminToken.get();
    this.logger.info(t.source === 'env' ? '[netaclaw] admin token: (from ADMIN_TOKEN)' : `[netaclaw] admin token: ${t.token}  (stored in ${t.file})`);
    this.logger.info(
      fs.existsSync(STATIC_DIR)
        ? `[netaclaw] serving pages from ${STATIC_DIR} (open the address below and log in with the admin token)`
        : `[netaclaw] no pages at ${STATIC_DIR} (scripts/demo.sh builds the pages and copies them there; or set STATIC_DIR to a built www/dist)`
    );
    // Printed last: the test harness (and people) take this line as "ready".
    this.logger.info(`[netaclaw] listening on http://${shownHost}:${port}/`);
  }
}
