/**
 * The rules of the request DTOs (`@Rule` of @midwayjs/validate, i.e. Joi schemas). They check shape only —
 * types, lengths, presence; what a value means (a tool, a vocabulary, a path) is the package's or the
 * service's. Lengths count characters (code points). A refused value is reported by its error code and
 * context; `validationMessage` words it, naming the field by its path (e.g. `calls[0].name`), and
 * `fromValidationError` makes it the request's 400.
 */
import { MidwayValidationError, RuleType } from '@midwayjs/validate';
import { AppError, invalidInput } from '../wire/errors';
import { isPositiveId } from '../wire/validate';

type Schema = RuleType.Schema;
type CustomHelpers = RuleType.CustomHelpers;

/** `rule` that must be present. */
export function required<T extends Schema>(rule: T): T {
  return rule.required() as T;
}

/** `rule`, or null. */
export function nullable<T extends Schema>(rule: T): T {
  return rule.allow(null) as T;
}

function maxChars(max: number) {
  return (value: string, helpers: CustomHelpers) => ([...value].length > max ? helpers.error('netaclaw.maxChars', { limit: max }) : value);
}

/** A string of at most `max` characters (empty allowed). */
export function text(max: number) {
  return RuleType.string().allow('').custom(maxChars(max));
}

/** Any string (empty allowed). */
export function str() {
  return RuleType.string().allow('');
}

/** A string with at least one non-space character, at most `max` characters. */
export function nonBlank(max: number) {
  return RuleType.any().custom((value: unknown, helpers: CustomHelpers) =>
    typeof value === 'string' && /\S/.test(value) ? maxChars(max)(value, helpers) : helpers.error('netaclaw.nonBlank')
  );
}

/** A positive integer id: a JSON number, or a string of digits (as a query string carries it). */
export function id() {
  return RuleType.any().custom((value: unknown, helpers: CustomHelpers) => (isPositiveId(value) ? value : helpers.error('netaclaw.id')));
}

/** An integer from `min` to `max`. */
export function intBetween(min: number, max: number) {
  return RuleType.any().custom((value: unknown, helpers: CustomHelpers) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? value : helpers.error('netaclaw.intBetween', { min, max })
  );
}

export function bool() {
  return RuleType.boolean();
}

/**
 * `rule`, its refusals reported under other codes (`{ 'any.required': 'netaclaw.nonBlank' }`): one
 * wording for a field whether it is missing or malformed.
 */
export function reworded<T extends Schema>(rule: T, codes: Record<string, string>): T {
  return rule.error(
    (reports: unknown) =>
      (reports as Array<{ code: string }>).map(r => {
        if (codes[r.code]) r.code = codes[r.code];
        return r;
      }) as never
  ) as T;
}

/** An array of strings. */
export function stringList() {
  return reworded(RuleType.array().items(RuleType.string()), { 'array.base': 'netaclaw.stringList' });
}

/** An array of at most `max` items, each checked by `item`. */
export function list(item: Schema, max: number) {
  return RuleType.array().items(item).max(max);
}

/** An object holding at most the fields `rules` names, each checked by its rule. */
export function closedObject(noun: string, rules: Record<string, Schema>) {
  const keys = Object.keys(rules);
  return RuleType.object(rules).custom((value: Record<string, unknown>, helpers: CustomHelpers) => {
    const extra = Object.keys(value).find(k => !keys.includes(k));
    return extra === undefined ? value : helpers.error('netaclaw.notAField', { extra, noun, keys: keys.join(', ') });
  });
}

/** A field a request of this kind may not carry at all (`where`: e.g. "an admin run"). */
export function notSettable(where: string) {
  return RuleType.any().custom((_value: unknown, helpers: CustomHelpers) => helpers.error('netaclaw.notSettable', { where }));
}

/** The key of a chat session a batch belongs to: a string or number of 1 to 64 characters. */
export function sessionKey() {
  return RuleType.any().custom((value: unknown, helpers: CustomHelpers) => {
    const ok = (typeof value === 'string' || typeof value === 'number') && String(value) !== '' && String(value).length <= 64;
    return ok ? value : helpers.error('netaclaw.sessionKey');
  });
}

/**
 * An integer from `min` to `max` in a query string (digits; a JSON number too); the empty string is
 * left as it is (the service reads it as absent). Answers the number.
 */
export function queryInt(min: number, max: number) {
  return RuleType.any()
    .allow('')
    .custom((value: unknown, helpers: CustomHelpers) => {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : NaN;
      return Number.isInteger(n) && n >= min && n <= max ? n : helpers.error('netaclaw.intBetween', { min, max });
    });
}

/** One problem a DTO found: Joi's error code, the field's path, the rule's numbers. */
export interface RuleProblem {
  type: string;
  path: Array<string | number>;
  context?: { label?: string; limit?: number; min?: number; max?: number; extra?: string; noun?: string; keys?: string; where?: string; valids?: unknown[] };
}

/** The message of a refused value, naming the field; a body that is not an object is named as such. */
export function validationMessage(p: RuleProblem): string {
  if (p.path.length === 0) return 'request body must be a JSON object';
  const field = p.context?.label ?? p.path.join('.');
  switch (p.type) {
    case 'any.required':
      return `${field} is required`;
    case 'string.base':
      return `${field} must be a string`;
    case 'netaclaw.nonBlank':
      return `${field} must be a non-empty string`;
    case 'netaclaw.maxChars':
      return `${field} must be at most ${p.context?.limit} characters`;
    case 'netaclaw.id':
      return `${field} must be a positive integer`;
    case 'netaclaw.intBetween':
      return `${field} must be an integer between ${p.context?.min} and ${p.context?.max}`;
    case 'boolean.base':
      return `${field} must be a boolean`;
    case 'netaclaw.stringList':
      return `${field} must be an array of strings`;
    case 'array.base':
      return `${field} must be an array`;
    case 'array.max':
      return `${field} must hold at most ${p.context?.limit} items`;
    case 'netaclaw.notAField':
      return `${field}.${p.context?.extra} is not a ${p.context?.noun} field (${p.context?.keys})`;
    case 'netaclaw.notSettable':
      return `${field} cannot be set on ${p.context?.where}`;
    case 'netaclaw.sessionKey':
      return `${field} must be a string or number of 1 to 64 characters`;
    case 'object.base':
      return `${field} must be a JSON object`;
    case 'any.only':
      return `${field} must be one of ${(p.context?.valids ?? []).filter(v => v !== null).join(', ')}`;
    default:
      return `${field} is not valid (${p.type})`;
  }
}

/**
 * The 400 of a request that a DTO refused (@midwayjs/validate): `invalid_input` with the first problem,
 * worded by `validationMessage` (naming the field). Null for any other error.
 */
export function fromValidationError(err: unknown): AppError | null {
  if (!(err instanceof MidwayValidationError)) return null;
  const first = (err.cause as { details?: RuleProblem[] } | undefined)?.details?.[0];
  return invalidInput(first ? validationMessage(first) : 'request body is not valid');
}
