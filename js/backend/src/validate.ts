/**
 * Small, explicit input checks for request bodies and queries. Every failure is an `invalid_input`
 * AppError (HTTP 400) whose message names the offending field.
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

export function optInt(o: Obj, key: string, min: number, max: number, def: number): number {
  if (!has(o, key) || o[key] === null) return def;
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalidInput(`${key} must be an integer between ${min} and ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function optString(o: Obj, key: string, maxLen?: number): string | undefined {
  if (!has(o, key) || o[key] === null) return undefined;
  const v = o[key];
  if (typeof v !== 'string') throw invalidInput(`${key} must be a string, got ${typeName(v)}`);
  if (maxLen !== undefined && [...v].length > maxLen) {
    throw invalidInput(`${key} must be at most ${maxLen} characters`);
  }
  return v;
}

/** string | null; undefined when absent. */
export function optNullableString(o: Obj, key: string, maxLen?: number): string | null | undefined {
  if (!has(o, key)) return undefined;
  if (o[key] === null) return null;
  return optString(o, key, maxLen);
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

export function optBool(o: Obj, key: string): boolean | undefined {
  if (!has(o, key)) return undefined;
  const v = o[key];
  if (typeof v !== 'boolean') throw invalidInput(`${key} must be a boolean, got ${typeName(v)}`);
  return v;
}

export function stringArray(v: unknown, path: string): string[] {
  if (!Array.isArray(v)) throw invalidInput(`${path} must be an array of strings, got ${typeName(v)}`);
  v.forEach((item, i) => {
    if (typeof item !== 'string') throw invalidInput(`${path}[${i}] must be a string, got ${typeName(item)}`);
  });
  return v as string[];
}

/** string[] | null; undefined when absent. */
export function optStringArray(o: Obj, key: string): string[] | null | undefined {
  if (!has(o, key)) return undefined;
  if (o[key] === null) return null;
  return stringArray(o[key], key);
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

/** An integer from a query string (digits), or `def` when absent or empty. */
export function queryInt(q: Obj, key: string, min: number, max: number, def: number): number {
  if (!has(q, key) || q[key] === '' || q[key] === null) return def;
  const v = q[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalidInput(`${key} must be an integer between ${min} and ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}
