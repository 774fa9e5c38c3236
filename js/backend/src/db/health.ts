/**
 * The database's availability as this instance sees it: which errors mean "the database is gone"
 * (→ 503 database_unavailable) or "busy" (→ 503 database_busy), and a monitor that, once the database
 * is gone, probes it again with exponential backoff until it answers. While it is gone, queries fail
 * at once (see NetaClawDataSource) instead of each waiting for a connection attempt; the only
 * connection attempts are the monitor's paced probes.
 */
import { backoffDelay } from './backoff';
import { DB_RETRY_MAX_MS } from '../config/settings';
import { log } from '../config/log';

/** Thrown instead of touching the database while the monitor says it is gone. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'database_unavailable';
  constructor(message = 'the database is unavailable') {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Thrown when a wait for a database lock held by another instance timed out. */
export class DatabaseBusyError extends Error {
  readonly code = 'database_busy';
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseBusyError';
  }
}

/** Connection-level failures: the server is not there, or the connection died. */
const UNAVAILABLE_CODES = new Set([
  'database_unavailable',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'SQLITE_CANTOPEN',
]);

const BUSY_CODES = new Set(['database_busy', 'ER_LOCK_WAIT_TIMEOUT', 'ER_LOCK_DEADLOCK']);

interface DriverErrorLike {
  code?: unknown;
  fatal?: unknown;
  message?: unknown;
  driverError?: DriverErrorLike;
}

function codes(err: unknown): string[] {
  const out: string[] = [];
  let e = err as DriverErrorLike | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 3; depth++) {
    if (typeof e.code === 'string') out.push(e.code);
    e = e.driverError;
  }
  return out;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as DriverErrorLike | undefined;
  if (!e || typeof e !== 'object') return false;
  if (codes(e).some(c => UNAVAILABLE_CODES.has(c) || c.startsWith('SQLITE_IOERR'))) return true;
  // mysql2 marks errors after which the connection is unusable as fatal
  if (e.fatal === true || e.driverError?.fatal === true) return true;
  return e.message === 'Pool is closed.';
}

export function isDatabaseBusy(err: unknown): boolean {
  return codes(err).some(c => BUSY_CODES.has(c) || c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED'));
}

/**
 * A MySQL/MariaDB write the server chose as a deadlock's victim: its transaction was rolled back whole, so
 * running it again is safe (dbWriteLock does). A lock wait that timed out is not one: it waited
 * innodb_lock_wait_timeout already, and only its statement was undone.
 */
export function isWriteContention(err: unknown): boolean {
  return codes(err).includes('ER_LOCK_DEADLOCK');
}

/** A write refused by a unique index (a row with the same key exists). */
export function isUniqueViolation(err: unknown): boolean {
  return codes(err).some(c => c === 'ER_DUP_ENTRY' || c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

export type DatabaseState = 'up' | 'down';

/**
 * One per process. `probe` is set by the data source once it exists. Logs once when the database
 * goes away and once when it is back — never once per failed request.
 */
export class DatabaseMonitor {
  private state: DatabaseState = 'up';
  private probe?: () => Promise<void>;
  private timer?: NodeJS.Timeout;
  private attempt = 0;
  private downSince = 0;
  private nextProbeAt = 0;
  private stopped = false;

  constructor(private readonly maxDelayMs: number) {}

  attach(probe: () => Promise<void>): void {
    this.probe = probe;
    this.stopped = false;
  }

  get current(): DatabaseState {
    return this.state;
  }

  /** Seconds until the next reconnection attempt (at least 1), for Retry-After. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.nextProbeAt - Date.now()) / 1000));
  }

  /** An error from a query: when it says the database is gone, switch to down and start probing. */
  reportError(err: unknown): void {
    if (!isDatabaseUnavailable(err) || err instanceof DatabaseUnavailableError) return;
    this.markDown(err);
  }

  /**
   * For /health: down → 'down' at once (the probe loop is the only thing that reconnects); up → a
   * live check (`SELECT 1`), bounded by `timeoutMs`; a failure switches to down.
   */
  async check(timeoutMs: number): Promise<DatabaseState> {
    if (this.state === 'down' || !this.probe) return this.state === 'down' ? 'down' : 'up';
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.probe(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('database probe timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
        }),
      ]);
      return 'up';
    } catch (err) {
      this.markDown(err);
      return 'down';
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private markDown(err: unknown): void {
    if (this.state === 'down' || this.stopped) return;
    this.state = 'down';
    this.downSince = Date.now();
    this.attempt = 0;
    log().error(`[netaclaw] database unavailable (${describe(err)}): answering 503, reconnecting with backoff`);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt, this.maxDelayMs);
    this.nextProbeAt = Date.now() + delay;
    this.timer = setTimeout(() => void this.reconnect(), delay);
    this.timer.unref();
  }

  private async reconnect(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || !this.probe) return;
    try {
      await this.probe();
    } catch {
      this.attempt += 1;
      this.schedule();
      return;
    }
    if (this.stopped) return;
    const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
    log().info(`[netaclaw] database reachable again after ${seconds} s (${this.attempt + 1} attempts)`);
    this.state = 'up';
  }
}

function describe(err: unknown): string {
  const c = codes(err)[0];
  const m = (err as { message?: unknown })?.message;
  return [c, typeof m === 'string' ? m : undefined].filter(Boolean).join(': ') || String(err);
}

export const dbMonitor = new DatabaseMonitor(DB_RETRY_MAX_MS);

/** The HTTP answer for a database error (the error filter's 503s), or null when it is not one. */
export function databaseErrorAnswer(err: unknown): { status: number; code: string; message: string; retryAfter: number } | null {
  if (isDatabaseUnavailable(err)) {
    dbMonitor.reportError(err);
    return {
      status: 503,
      code: 'database_unavailable',
      message: 'the database is unavailable; try again later',
      retryAfter: dbMonitor.retryAfterSeconds(),
    };
  }
  if (isDatabaseBusy(err)) {
    const m = (err as { message?: unknown }).message;
    return {
      status: 503,
      code: 'database_busy',
      message: err instanceof DatabaseBusyError && typeof m === 'string' ? m : 'the database is busy; try again later',
      retryAfter: 1,
    };
  }
  return null;
}
