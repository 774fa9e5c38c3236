import { Controller, Get, Inject } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { dbMonitor } from '../dbhealth';
import { shellSandbox } from '../runtime/sandbox';

/** A live database check answers within this bound (a server that stopped answering counts as down). */
const DB_CHECK_TIMEOUT_MS = 2000;

@Controller('/')
export class HealthController {
  @Inject()
  ctx: Context;

  /**
   * Listening means the startup catalog sync succeeded. 200 `{ status: 'ok', database: 'up', shellSandbox }`,
   * or 503 `{ status: 'degraded', database: 'down', shellSandbox }` while the database is unreachable.
   * `shellSandbox`: `bwrap` (shell tools run sandboxed), `unavailable` (they are denied) or `off` (the
   * operator switched the sandbox off: they run unconfined).
   */
  @Get('/health')
  async health() {
    const database = await dbMonitor.check(DB_CHECK_TIMEOUT_MS);
    const data = { status: database === 'up' ? 'ok' : 'degraded', database, shellSandbox: shellSandbox().mode };
    if (data.status !== 'ok') this.ctx.status = 503;
    return data;
  }
}
