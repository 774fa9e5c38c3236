/**
 * An error that maps to an HTTP answer `{ error: { code, message, errors?, ...extra } }` (`extra`:
 * more members of the error object, e.g. the `current` row of a 409 conflict).
 */
export class AppError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly errors?: Array<{ field: string; code: string }>,
    public readonly extra?: Record<string, unknown>
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function invalidInput(message: string): AppError {
  return new AppError(400, 'invalid_input', message);
}

export function notFound(message: string): AppError {
  return new AppError(404, 'not_found', message);
}

export function unauthorized(message: string): AppError {
  return new AppError(401, 'unauthorized', message);
}

/** 409: the record changed since the client read it (`version`); nothing was written. */
export function conflict(message: string, current: unknown): AppError {
  return new AppError(409, 'conflict', message, undefined, { current });
}
