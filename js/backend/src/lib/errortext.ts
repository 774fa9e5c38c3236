/**
 * What a caught value says. A `catch` receives `unknown` (useUnknownInCatchVariables): an Error, or
 * whatever was thrown or rejected (a string, an object with a message, anything). Dependency-free, so
 * that the sandboxed worker loads it too.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  const message = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : String(err);
}

/** An Error's stack (its message when it has none), anything else as {@link errorMessage} says it: for the log. */
export function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : errorMessage(err);
}
