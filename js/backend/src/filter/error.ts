import { Catch, ILogger, Logger } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { databaseErrorAnswer } from '../db/health';
import { fromValidationError } from '../dto/rules';
import { AppError } from '../wire/errors';
import { JSON_BODY_LIMIT } from '../config/settings';
import { errorStack } from '../lib/errortext';

/**
 * Turns every error into `{ error: { code, message, errors? } }`. Client mistakes are 4xx (never a
 * 500): our own AppErrors, a body a DTO refused (400 `invalid_input` naming the field), the package's `invalid_input` errors, and the framework's 4xx (malformed
 * JSON from the body parser, unknown route, a body over the limit). A database that is gone or busy
 * is a 503 (`database_unavailable`, `database_busy`) with Retry-After. Anything else is a 500
 * `internal_error`, logged.
 */
@Catch()
export class ErrorFilter {
  @Logger()
  logger: ILogger;

  async catch(err: unknown, ctx: Context) {
    err = fromValidationError(err) ?? err;
    const e = err as { status?: number; statusCode?: number; code?: unknown; message?: string };
    let status: number;
    let code: string;
    let message = typeof e?.message === 'string' ? e.message : String(err);
    let errors: AppError['errors'];
    let extra: AppError['extra'];
    let db: ReturnType<typeof databaseErrorAnswer>;
    if (err instanceof AppError) {
      status = err.status;
      code = err.code;
      errors = err.errors;
      extra = err.extra;
    } else if ((db = databaseErrorAnswer(err))) {
      ({ status, code, message } = db);
      ctx.set('Retry-After', String(db.retryAfter));
    } else if (e?.code === 'invalid_input') {
      status = 400;
      code = 'invalid_input';
    } else {
      const s = Number(e?.status ?? e?.statusCode);
      if (Number.isInteger(s) && s >= 400 && s < 500) {
        status = s;
        code = s === 404 ? 'not_found' : s === 401 ? 'unauthorized' : s === 413 ? 'payload_too_large' : 'invalid_input';
        if (s === 404) message = `${ctx.method} ${ctx.path}: no such route`;
        if (s === 413) message = `request body too large (the limit is ${JSON_BODY_LIMIT})`;
        message = message.replace(/, check bodyParser config$/, '');
        if (s === 400 && /JSON|Unexpected|token/i.test(message)) message = `malformed JSON body: ${message}`;
      } else {
        status = 500;
        code = 'internal_error';
        this.logger.error('[netaclaw] %s %s failed: %s', ctx.method, ctx.path, errorStack(err));
        message = 'internal error';
      }
    }
    ctx.status = status;
    ctx.type = 'application/json';
    return { error: { code, message, ...(errors ? { errors } : {}), ...extra } };
  }
}
