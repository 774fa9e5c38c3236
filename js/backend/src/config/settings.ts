/**
 * Everything the backend reads from the environment, resolved once at load time.
 * See README.md for the list of variables.
 */
import * as os from 'os';
import * as path from 'path';

/** js/backend (this file is src/config/settings.ts or dist/config/settings.js). */
export const BACKEND_ROOT = path.resolve(__dirname, '..', '..');

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

function resolveFromCwd(p: string): string {
  return path.resolve(process.cwd(), p);
}

function intEnv(name: string, def: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/**
 * Where the backend keeps its state unless told otherwise: `$XDG_DATA_HOME/netaclaw` (an absolute
 * XDG_DATA_HOME), else `~/.local/share/netaclaw` — outside any checkout, so that a workspace root at a
 * checkout never holds the backend's data (a root that reaches it is refused all the same:
 * backendstate.ts).
 */
export const STATE_HOME = path.join(
  env('XDG_DATA_HOME') && path.isAbsolute(env('XDG_DATA_HOME')!) ? env('XDG_DATA_HOME')! : path.join(os.homedir(), '.local', 'share'),
  'netaclaw'
);

export const DATA_DIR = env('DATA_DIR') ? resolveFromCwd(env('DATA_DIR')!) : path.join(STATE_HOME, 'data');

/** The built pages (scripts/demo.sh copies `www/dist` there). */
export const STATIC_DIR = env('STATIC_DIR') ? resolveFromCwd(env('STATIC_DIR')!) : path.join(STATE_HOME, 'pages');

/** Skills: one folder per skill, `SKILL.md` its text. */
export const SKILLS_DIR = env('NETACLAW_SKILLS_DIR') ? resolveFromCwd(env('NETACLAW_SKILLS_DIR')!) : path.join(DATA_DIR, 'skills');

export const PORT = intEnv('PORT', 7001, 1, 65535);
export const HOST = env('HOST') ?? '127.0.0.1';

export type DbSettings =
  | { kind: 'sqlite'; path: string }
  | {
      kind: 'mysql';
      type: 'mysql' | 'mariadb';
      host: string;
      port: number;
      user: string;
      password: string;
      database: string;
    };

function dbSettings(): DbSettings {
  const type = (env('DB_TYPE') ?? 'sqlite').toLowerCase();
  if (type === 'sqlite' || type === 'better-sqlite3') {
    return {
      kind: 'sqlite',
      path: env('DB_PATH') ? resolveFromCwd(env('DB_PATH')!) : path.join(DATA_DIR, 'netaclaw.sqlite'),
    };
  }
  if (type === 'mysql' || type === 'mariadb') {
    return {
      kind: 'mysql',
      type,
      host: env('DB_HOST') ?? '127.0.0.1',
      port: intEnv('DB_PORT', 3306, 1, 65535),
      user: env('DB_USER') ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      database: env('DB_NAME') ?? 'netaclaw',
    };
  }
  throw new Error(`DB_TYPE must be sqlite, mysql or mariadb, got ${JSON.stringify(type)}`);
}

export const DB: DbSettings = dbSettings();

/**
 * `REDIS_URL` (`redis://[user:password@]host:port[/db]`): the bus several instances on one MySQL/MariaDB
 * database share for what is live (src/bus/); unset, they coordinate through the database alone.
 */
export const REDIS_URL: string | undefined = (() => {
  const raw = env('REDIS_URL');
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^rediss?:$/.test(url.protocol)) throw new Error(`REDIS_URL must be redis://host:port (or rediss://), got ${JSON.stringify(raw)}`);
  return raw;
})();

/** SQLite: how long a write waits for a lock another process holds on the file before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = intEnv('SQLITE_BUSY_TIMEOUT_MS', 5000, 0, 600000);

export function describeDb(db: DbSettings = DB): string {
  return db.kind === 'sqlite' ? `sqlite ${db.path}` : `${db.type} ${db.user}@${db.host}:${db.port}/${db.database}`;
}

/**
 * Test-only fault hook: when set to N (>= 1), the catalog sync throws just before its N-th write,
 * inside the transaction. Used by the test suite to prove the sync is all-or-nothing.
 */
export function syncFaultAt(): number | undefined {
  const raw = env('NETACLAW_TEST_SYNC_FAIL_AT_WRITE');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** `NETACLAW_CATALOG_FILE`: a JSON array of ToolSchema appended to the builtin catalog (absolute path). */
export const CATALOG_FILE = env('NETACLAW_CATALOG_FILE') ? resolveFromCwd(env('NETACLAW_CATALOG_FILE')!) : undefined;

/**
 * `NETACLAW_SEED_FILE`: a JSON array of AgentInput added at start when the agent table is empty (the
 * demo's example agents); unset, nothing is seeded.
 */
export const SEED_FILE = env('NETACLAW_SEED_FILE') ? resolveFromCwd(env('NETACLAW_SEED_FILE')!) : undefined;

/**
 * `NETACLAW_DEMO_MODEL=1` (the demo sets it): an agent without a model channel converses with the built-in
 * demonstration model (src/agent/demo-model.ts) instead of being refused `no_model_channel`.
 */
export const DEMO_MODEL = env('NETACLAW_DEMO_MODEL') === '1';

/** The default model channel described by the environment (created or updated at every start). */
export interface ModelEnv {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  capability: string;
}

function modelEnv(): ModelEnv | undefined {
  const baseUrl = env('NETACLAW_MODEL_BASE_URL');
  const model = env('NETACLAW_MODEL');
  if (baseUrl === undefined && model === undefined) return undefined;
  if (baseUrl === undefined) throw new Error('NETACLAW_MODEL is set but NETACLAW_MODEL_BASE_URL is not: set both (or neither)');
  if (model === undefined) throw new Error('NETACLAW_MODEL_BASE_URL is set but NETACLAW_MODEL is not: set both (or neither)');
  return {
    baseUrl,
    apiKey: env('NETACLAW_MODEL_API_KEY'),
    model,
    capability: env('NETACLAW_MODEL_CAPABILITY') ?? 'text',
  };
}

export const MODEL_ENV: ModelEnv | undefined = modelEnv();

/** Model calls: time without an answer (or between two stream chunks) before giving up, and retries. */
export const MODEL_TIMEOUT_MS = intEnv('NETACLAW_MODEL_TIMEOUT_MS', 120000, 100, 3600000);
export const MODEL_MAX_RETRIES = intEnv('NETACLAW_MODEL_MAX_RETRIES', 2, 0, 10);

/** The agent loop: model calls per message (main agent and each sub-agent). */
export const MAX_STEPS = intEnv('NETACLAW_MAX_STEPS', 12, 1, 200);

/** Characters of history sent to the model (oldest turns dropped first). */
export const HISTORY_CHARS = intEnv('NETACLAW_HISTORY_CHARS', 200000, 1000, 10000000);

/** Characters of one model reply (the stream is stopped there). */
export const MAX_REPLY_CHARS = intEnv('NETACLAW_MAX_REPLY_CHARS', 65536, 100, 10000000);

/**
 * How long a claim on a session (one message at a time, across instances) holds without being renewed;
 * the instance answering renews it every quarter of this while the turn runs. A claim left by an instance
 * that died expires after this long.
 */
export const SESSION_LEASE_SECONDS = intEnv('NETACLAW_SESSION_LEASE_SECONDS', 60, 2, 3600);

/**
 * How many chat turns one instance runs at once (gateway/turns.ts); past it a new turn is refused with
 * `busy` until one ends. Each running turn holds a model stream and, while it calls tools, a worker.
 */
export const LIVE_TURNS_MAX = intEnv('NETACLAW_LIVE_TURNS_MAX', 64, 1, 10000);

/**
 * How long a sub-agent's call that a rule asks about waits for the user's answer (docs/runtime.md
 * "Approvals"); then it is denied `approval_required`, never allowed.
 */
export const APPROVAL_WAIT_SECONDS = intEnv('NETACLAW_APPROVAL_WAIT_SECONDS', 300, 1, 86400);

/**
 * How many network decisions of one run (a chat session's tools in a turn, a batch) are stored and
 * streamed (docs/runtime.md "Network"); past it they are counted in the log only: a loop of connections
 * cannot flood the database or a live stream.
 */
export const NET_RECORDS_MAX = intEnv('NETACLAW_NET_RECORDS_MAX', 1000, 1, 1000000);

/** Largest JSON request body (the body parser's limit; larger → 413 payload_too_large). */
export const JSON_BODY_LIMIT = '1mb';

/** Graceful stop budget: past it (after SIGTERM/SIGINT) the process exits whatever is still pending. */
export const SHUTDOWN_TIMEOUT_MS = intEnv('SHUTDOWN_TIMEOUT_MS', 5000, 100, 600000);

/** MySQL/MariaDB: how long a start waits for the server to accept connections before it gives up. */
export const DB_WAIT_SECONDS = intEnv('DB_WAIT_SECONDS', 30, 0, 3600);

/** MySQL/MariaDB: how long a sync waits for the lock another instance holds while it syncs. */
export const DB_LOCK_TIMEOUT_SECONDS = intEnv('DB_LOCK_TIMEOUT_SECONDS', 60, 1, 3600);

/** Longest pause between two reconnection attempts while the database is unreachable. */
export const DB_RETRY_MAX_MS = intEnv('DB_RETRY_MAX_MS', 5000, 100, 300000);

/**
 * The pages' login session (session.ts): how long it lasts without use (`NETACLAW_SESSION_IDLE_SECONDS`,
 * default 1 hour, at most the absolute 12 hours a login lasts in any case).
 */
export const SESSION_IDLE_SECONDS = intEnv('NETACLAW_SESSION_IDLE_SECONDS', 3600, 1, 12 * 60 * 60);

/** Failed bearer checks allowed per client address in a window, before 429. */
export const AUTH_FAIL_LIMIT = intEnv('AUTH_FAIL_LIMIT', 10, 1, 1000000);
export const AUTH_FAIL_WINDOW_SECONDS = intEnv('AUTH_FAIL_WINDOW_SECONDS', 60, 1, 86400);

/**
 * How the log is written (`LOG_FORMAT`): `text` (the default: time, level, pid and message, Midway's
 * format) or `json` (one JSON object a line: time, level, pid, message), for a log collector.
 */
export const LOG_FORMAT: 'text' | 'json' = (() => {
  const raw = env('LOG_FORMAT') ?? 'text';
  if (raw !== 'text' && raw !== 'json') throw new Error(`LOG_FORMAT must be text or json, got ${JSON.stringify(raw)}`);
  return raw;
})();

/** Take the client address from X-Forwarded-For (only behind a reverse proxy that sets it). */
export const TRUST_PROXY = env('TRUST_PROXY') === '1';

/**
 * Origins allowed to call the API from a browser page of another origin (`CORS_ORIGINS`, comma
 * separated, each `scheme://host[:port]`). Empty: CORS closed.
 */
export const CORS_ORIGINS: string[] = (() => {
  const raw = env('CORS_ORIGINS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map(s => s.trim())
    .filter(s => s !== '')
    .map(s => {
      let url: URL | undefined;
      try {
        url = new URL(s);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== s.replace(/\/$/, '')) {
        throw new Error(`CORS_ORIGINS: ${JSON.stringify(s)} is not an origin (scheme://host[:port], no path)`);
      }
      return url.origin;
    });
})();

/**
 * Test-only hook: when set to N (milliseconds), the catalog sync waits N ms inside its transaction
 * after its first write (printing `sync paused`). Used to stop an instance in the middle of a sync.
 */
export function syncPauseMs(): number | undefined {
  const raw = env('NETACLAW_TEST_SYNC_PAUSE_MS');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}
