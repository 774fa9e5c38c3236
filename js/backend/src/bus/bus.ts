/**
 * The bus of several instances on one MySQL/MariaDB database (`REDIS_URL`): Redis pub/sub carries what is
 * live — a running turn's events to the instances following it, a cancel to the instance running the turn,
 * an MCP refresh to every instance. The database keeps the durable record and stays the path of everything:
 * what the bus carries is also written there (or read there on a slower poll), so that an instance without
 * Redis — not configured, or away for a while — loses nothing, it only learns later.
 *
 * Two connections (a Redis connection that subscribes can do nothing else): one publishes, one listens.
 * Neither queues a command while Redis is away (a publish then answers false and the caller relies on the
 * database); both reconnect on their own, and the listener subscribes again to every channel still wanted.
 * Channels are named under the database (`netaclaw:<host:port/name>:`), so that deployments sharing one
 * Redis never hear each other.
 */
import * as crypto from 'crypto';
import Redis from 'ioredis';
import { DB, REDIS_URL } from '../config/settings';
import { errorMessage } from '../lib/errortext';
import { log } from '../config/log';

export interface BusHealth {
  /** `redis`: REDIS_URL is set (connected or not); `database`: instances coordinate through the database alone. */
  kind: 'redis' | 'database';
  connected: boolean;
  detail: string;
}

type Handler = (msg: Record<string, unknown>) => void;

/** Longest pause between two reconnection attempts while Redis is away. */
const RETRY_MAX_MS = 1000;

export class Bus {
  /** This process: a message it published comes back to it, and is told apart by this. */
  readonly instance = crypto.randomBytes(8).toString('hex');
  private pub: Redis | null = null;
  private sub: Redis | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly watchers = new Set<(up: boolean) => void>();
  private wasUp = false;
  private lastError = '';
  private prefix = 'netaclaw:';

  constructor(private readonly url: string | undefined = REDIS_URL) {}

  /** Connects when REDIS_URL is set and the database is shared (MySQL/MariaDB; SQLite has one instance). */
  start(): void {
    if (!this.url || this.pub) return;
    if (DB.kind !== 'mysql') {
      log().warn('[netaclaw] WARNING REDIS_URL is set but the database is SQLite (one instance per file): the bus is not used');
      return;
    }
    this.prefix = `netaclaw:${DB.host}:${DB.port}/${DB.database}:`;
    const options = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      autoResubscribe: false,
      connectTimeout: 2000,
      retryStrategy: (times: number) => Math.min(times * 100, RETRY_MAX_MS),
    };
    this.pub = new Redis(this.url, options);
    this.sub = new Redis(this.url, options);
    for (const c of [this.pub, this.sub]) {
      c.on('error', err => {
        this.lastError = errorMessage(err);
        this.changed();
      });
      c.on('ready', () => this.changed());
      c.on('close', () => this.changed());
      c.on('end', () => this.changed());
    }
    this.sub.on('ready', () => {
      const channels = [...this.handlers.keys()];
      if (channels.length > 0) this.sub!.subscribe(...channels).catch(() => undefined);
    });
    this.sub.on('message', (channel: string, text: string) => {
      const set = this.handlers.get(channel);
      if (!set) return;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      for (const h of [...set]) h(msg);
    });
  }

  /** Both connections ready. */
  get up(): boolean {
    return this.pub?.status === 'ready' && this.sub?.status === 'ready';
  }

  health(): BusHealth {
    if (!this.pub) {
      return {
        kind: 'database',
        connected: true,
        detail: this.url ? 'REDIS_URL is ignored on SQLite (one instance per file)' : 'REDIS_URL is not set: instances coordinate through the database',
      };
    }
    return this.up
      ? { kind: 'redis', connected: true, detail: 'Redis connected: live events, cancels and refreshes go through it' }
      : {
          kind: 'redis',
          connected: false,
          detail: `Redis is not reachable${this.lastError ? ` (${this.lastError})` : ''}: the database path is used until it is back`,
        };
  }

  /** Calls `watcher` whenever the bus comes up or goes away; returns the function that stops it. */
  watch(watcher: (up: boolean) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private changed(): void {
    const up = this.up;
    if (up === this.wasUp) return;
    this.wasUp = up;
    if (up) log().info('[netaclaw] bus: Redis connected');
    else log().warn(`[netaclaw] WARNING bus: Redis is away${this.lastError ? ` (${this.lastError})` : ''}: the database path is used until it is back`);
    for (const w of [...this.watchers]) w(up);
  }

  /** Publishes `msg` on `channel` (this instance's id added as `from`); false when it could not be sent. */
  publish(channel: string, msg: Record<string, unknown>): boolean {
    if (!this.pub || !this.up) return false;
    this.pub.publish(this.prefix + channel, JSON.stringify({ ...msg, from: this.instance })).catch(() => undefined);
    return true;
  }

  /**
   * Calls `handler` with every message on `channel` from now on (and again after Redis comes back).
   * `ready` resolves true once Redis has confirmed the subscription, false when it is away.
   */
  subscribe(channel: string, handler: Handler): { ready: Promise<boolean>; stop: () => void } {
    const name = this.prefix + channel;
    let set = this.handlers.get(name);
    const first = !set;
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(handler);
    const ready =
      this.sub && this.up
        ? first
          ? this.sub.subscribe(name).then(
              () => true,
              () => false
            )
          : Promise.resolve(true)
        : Promise.resolve(false);
    return {
      ready,
      stop: () => {
        const s = this.handlers.get(name);
        if (!s || !s.delete(handler) || s.size > 0) return;
        this.handlers.delete(name);
        if (this.sub && this.up) this.sub.unsubscribe(name).catch(() => undefined);
      },
    };
  }

  /** A Redis key (or channel) name under this deployment's namespace. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** The connection that publishes, for a store that needs its own commands (the shared login limiter). */
  get client(): Redis | null {
    return this.pub;
  }

  async close(): Promise<void> {
    const conns = [this.pub, this.sub].filter((c): c is Redis => c !== null);
    this.pub = this.sub = null;
    this.handlers.clear();
    await Promise.all(conns.map(c => c.quit().catch(() => c.disconnect())));
  }
}

/** This process's bus (started by configuration.ts). */
export const bus = new Bus();
