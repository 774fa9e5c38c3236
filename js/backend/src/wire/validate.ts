/**
 * The checks the request DTOs do not do: an id outside a DTO (a stored call's agent, a tool update),
 * an object, a value of one of the package's vocabularies, the storage limits of the tool update. Every
 * failure is an `invalid_input` AppError (HTTP 400) whose message names the offending field.
 */
import { invalidInput } from './errors';

export type Obj = Record<string, unknown>;

export function has(o: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

export function requireObject(value: unknown, what: string): Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidInput(`${what} must be a JSON object`);
  }
  return value as Obj;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Whether `value` is a positive integer id: a JSON number, or (from a query string) a string of digits. */
export function isPositiveId(value: unknown): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1;
  return typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value));
}

/** A positive integer id, given as a JSON number or (from a query string) a string of digits. */
export function parseId(value: unknown, field: string): number {
  if (isPositiveId(value)) return Number(value);
  throw invalidInput(`${field} must be a positive integer, got ${JSON.stringify(value) ?? typeName(value)}`);
}

export function optEnum<T extends string>(o: Obj, key: string, values: readonly T[]): T | null | undefined {
  if (!has(o, key)) return undefined;
  const v = o[key];
  if (v === null) return null;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw invalidInput(`${key} must be one of ${values.join(', ')} or null, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/**
 * Storage limits that hold on every backend (a MySQL/MariaDB TEXT column holds 65,535 bytes, i.e. at
 * least 16,383 four-byte characters; INT is 32-bit signed). Checked before writing so that an
 * over-long value is a 400, never a database error.
 */
export const TEXT_MAX_CHARS = 16000;
export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;

export function checkTextLimit(value: unknown, field: string): void {
  if (typeof value === 'string' && [...value].length > TEXT_MAX_CHARS) {
    throw invalidInput(`${field} must be at most ${TEXT_MAX_CHARS} characters`);
  }
}

export function checkIntRange(value: unknown, field: string): void {
  if (typeof value === 'number' && (value < INT_MIN || value > INT_MAX)) {
    throw invalidInput(`${field} must be between ${INT_MIN} and ${INT_MAX}`);
  }
}
