import { Controller, Get, Inject } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { dbMonitor } from '../dbhealth';

/** A live database check answers within this bound (a server that stopped answering counts as down). */
const DB_CHECK_TIMEOUT_MS = 2000;

@Controller('/')
export class HealthController {
  @Inject()
  ctx: Context;

  /**
   * Listening means the startup catalog sync succeeded. 200 `{ status: 'ok', database: 'up' }`, or
   * 503 `{ status: 'degraded', database: 'down' }` while the database is unreachable.
   */
  @Get('/health')
  async health() {
    const database = await dbMonitor.check(DB_CHECK_TIMEOUT_MS);
    const data = { status: database === 'up' ? 'ok' : 'degraded', database };
    if (data.status !== 'ok') this.ctx.status = 503;
    return { data };
  }
}
