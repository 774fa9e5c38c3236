/** An error that maps to an HTTP answer `{ error: { code, message, errors? } }`. */
export class AppError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly errors?: Array<{ field: string; code: string }>,
    /** More fields of the error object (e.g. the `sessionId` of a chat turn that failed). */
    public readonly details?: Record<string, unknown>
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
