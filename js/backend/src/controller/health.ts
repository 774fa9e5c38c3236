import { Controller, Get, Inject } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { dbMonitor } from '../db/health';
import type { RuntimeEnv } from '../runtime';
import { bus } from '../bus/bus';

/** A live database check answers within this bound (a server that stopped answering counts as down). */
const DB_CHECK_TIMEOUT_MS = 2000;

@Controller('/')
export class HealthController {
  @Inject()
  ctx: Context;

  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  /**
   * Listening means the startup catalog sync succeeded. 200 `{ status: 'ok', database: 'up', shellSandbox }`,
   * or 503 `{ status: 'degraded', database: 'down', shellSandbox }` while the database is unreachable.
   * `shellSandbox`: `bwrap` (shell tools run sandboxed), `unavailable` (they are denied) or `off` (the
   * operator switched the sandbox off: they run unconfined). `sandbox`: where workers run (`bwrap`: inside
   * the confined sandbox, with seccomp; `node-permission-only` when the OS sandbox is not available — the
   * start log says why), `limits`: the kernel limits of each sandbox (`cgroup2`, `cgroup1`, `uid-range`,
   * `rlimit`; runtime/cgroups.ts) and `weaker`: the limits that mechanism bounds less than a cgroup would
   * (`processes`, `memory`, `tmpfs`, `memfd`; empty when none). `bus`: how this instance hears the others
   * (`{ kind: 'redis' | 'database', connected, detail }`, src/bus/): Redis away is not a fault of the instance
   * (it goes on through the database, the status stays `ok`), only slower news from the others.
   */
  @Get('/health')
  async health() {
    const database = await dbMonitor.check(DB_CHECK_TIMEOUT_MS);
    const sandbox = this.runtime.sandbox;
    const c = sandbox.confinement;
    const data = {
      status: database === 'up' ? 'ok' : 'degraded',
      database,
      shellSandbox: sandbox.mode,
      // where workers and shells run (the reasons and details are in the start log, not on this open endpoint)
      sandbox: c
        ? { worker: sandbox.mode, seccomp: true, limits: c.limits.mode, weaker: c.limits.weaker }
        : { worker: 'node-permission-only', seccomp: false, limits: 'none', weaker: ['processes', 'memory', 'tmpfs', 'memfd'] },
      bus: bus.health(),
    };
    if (data.status !== 'ok') this.ctx.status = 503;
    return data;
  }
}
