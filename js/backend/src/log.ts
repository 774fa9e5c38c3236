import { getCurrentApplicationContext, ILogger, MidwayLoggerService } from '@midwayjs/core';

/**
 * The application's Midway logger, for code that is not a Midway-managed object (a migration TypeORM
 * makes). Null before the application context exists.
 */
export function appLogger(): ILogger | null {
  try {
    return getCurrentApplicationContext().get(MidwayLoggerService).getLogger('appLogger') ?? null;
  } catch {
    return null;
  }
}
