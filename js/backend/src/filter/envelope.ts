import { Match } from '@midwayjs/core';
import { Context } from '@midwayjs/koa';
import { Stream } from 'stream';

/**
 * The success envelope of every API answer: a controller returns its value, the client gets
 * `{ data: value }` (docs/backend-api.md). Only answers of a matched route are wrapped; a route that
 * writes its own body (the batch events' Server-Sent Events stream) and the static pages pass as they are.
 * Errors never come here: ErrorFilter answers `{ error }`.
 */
@Match((ctx: Context) => Boolean((ctx as Context & { _matchedRoute?: unknown })._matchedRoute))
export class EnvelopeFilter {
  match(value: unknown) {
    if (value === undefined || value instanceof Stream || Buffer.isBuffer(value)) return value;
    return { data: value };
  }
}
