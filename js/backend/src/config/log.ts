import { getCurrentApplicationContext, ILogger, MidwayLoggerService } from '@midwayjs/core';
import { LoggerInfo, MidwayLogger } from '@midwayjs/logger';
import { LOG_FORMAT } from './settings';

/**
 * A log line under LOG_FORMAT=json: one JSON object, `{"time", "level", "pid", "message"}` (time in ISO
 * 8601, UTC; the message as the text format prints it, an error's stack included).
 */
export function jsonLine(info: LoggerInfo): string {
  return JSON.stringify({ time: new Date().toISOString(), level: info.level, pid: info.pid, message: info.message });
}

/** The format options of every Midway logger (configuration.ts): JSON lines, or Midway's text format. */
export function logFormatOptions(): { format?: typeof jsonLine; contextFormat?: typeof jsonLine } {
  return LOG_FORMAT === 'json' ? { format: jsonLine, contextFormat: jsonLine } : {};
}

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

let standalone: MidwayLogger | undefined;

/**
 * A logger of the application logger's format and level that needs no application context, writing to
 * stdout (errors to stderr) as Midway's console transport does: for lines written before the context
 * exists (the typeorm CLI, a database wait at start) and for Midway's bootstrap (bootstrap.js).
 */
export function bootLogger(): MidwayLogger {
  standalone ??= new MidwayLogger({ level: 'info', ...logFormatOptions(), transports: { console: { autoColors: false } } });
  return standalone;
}

/** The backend's logger: Midway's application logger, or {@link bootLogger} before the application context exists. */
export function log(): ILogger {
  return appLogger() ?? bootLogger();
}
