/**
 * The versioned IPC protocol between the main process and a sub-agent worker (docs/runtime.md
 * "Protocol"). Every message is a plain object `{ v: 1, type, ... }` sent over Node's IPC channel.
 * `parseMessage` is the one parser both sides use: a message with an unknown `v` or `type`, a missing or
 * mistyped field, or an unknown field is rejected with a ProtocolError.
 */
import type { RuleMatch, RulesInput, ToolRuntimeRoute, ToolSchema, WorkerPolicy } from '@netaclaw/tool-policy';
import type { GateDecision } from './gate';
import { DECISIONS } from './codes';

export const PROTOCOL_VERSION = 1;

export type Driver = 'model' | 'calls';

/** The worker's policy: the package's (its roots, whether shells and writes are allowed). */
export type WorkerPolicyWire = WorkerPolicy;

export interface WorkerLimits {
  /** Whole batch, ms (the host enforces it; the worker only reports it). */
  timeoutMs: number;
  /** Output kept per call, bytes. */
  outputBytes: number;
}

/** Test-only switches of the worker's own layers (set only by a host constructed with test options). */
export interface WorkerLayers {
  gate: boolean;
  hostCheck: boolean;
}

/**
 * An image or audio part of a tool's answer (an MCP result's), base64 as the server sent it. The output
 * text always says what it was too; the agent loop gives it to a channel that can see it (agent/media.ts).
 */
export interface ResultMedia {
  type: 'image' | 'audio';
  mimeType: string;
  data: string;
}

export interface CallOutcome {
  decision: GateDecision;
  reason: string | null;
  detail: string | null;
  ok: boolean;
  output?: string;
  error?: string;
  durationMs: number;
  /** The rule that decided the call (docs/package.md "Rules"), when one spoke. */
  rule?: RuleMatch | null;
  /** Images and audio of a call the main process ran (tools/types.ts): never part of a message to a worker. */
  media?: ResultMedia[];
}

export type InitMessage = {
  v: 1;
  type: 'init';
  batchId: number;
  policy: WorkerPolicyWire;
  /** The batch's routes, as the package computed them (the worker's gate reads them with the package again). */
  routes: ToolRuntimeRoute[];
  /** The session's rules (the package validates them when the worker's gate reads them). */
  rules?: RulesInput | null;
  driver: Driver;
  limits: WorkerLimits;
  shell: 'bwrap' | 'sandboxed' | 'off' | 'unavailable';
  /** The sandbox's system binds, computed by the main process (the worker may not look at /bin or /lib). */
  sandboxSystem: string[];
  /**
   * The main process's catalog when it is not the builtin one (NETACLAW_CATALOG_FILE): the routes name its
   * tools, and the worker's gate decides with it (the package validates it there).
   */
  catalog?: ToolSchema[];
  layers?: WorkerLayers;
};
export type CallMessage = { v: 1; type: 'call'; seq: number; name: string; arguments: unknown };
export type ResultMessage = { v: 1; type: 'result'; seq: number } & CallOutcome;
export type ProxyMessage = { v: 1; type: 'proxy'; id: number; seq: number; name: string; arguments: unknown };
export type ProxyResultMessage = { v: 1; type: 'proxy-result'; id: number } & CallOutcome;
export type EventMessage = { v: 1; type: 'event'; name: string; data?: unknown };
/** The worker asks where one of its open descriptors really points (it may not read /proc itself). */
export type FdMessage = { v: 1; type: 'fd'; id: number; fd: number };
export type FdResultMessage = { v: 1; type: 'fd-result'; id: number; path: string | null };
export type DoneMessage = { v: 1; type: 'done' };
export type ErrorMessage = { v: 1; type: 'error'; message: string };

export type Message =
  | InitMessage
  | CallMessage
  | ResultMessage
  | ProxyMessage
  | ProxyResultMessage
  | EventMessage
  | FdMessage
  | FdResultMessage
  | DoneMessage
  | ErrorMessage;

export type MessageType = Message['type'];

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

type FieldCheck = (v: unknown) => boolean;

const isString: FieldCheck = v => typeof v === 'string';
const isNullableString: FieldCheck = v => v === null || typeof v === 'string';
const isBool: FieldCheck = v => typeof v === 'boolean';
const isSeq: FieldCheck = v => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isDuration: FieldCheck = v => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isAny: FieldCheck = () => true;
const isDecision: FieldCheck = v => (Object.values(DECISIONS) as unknown[]).includes(v);
const isDriver: FieldCheck = v => v === 'model' || v === 'calls';
const isShell: FieldCheck = v => v === 'bwrap' || v === 'sandboxed' || v === 'off' || v === 'unavailable';
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isPolicy: FieldCheck = v =>
  isPlainObject(v) &&
  Array.isArray(v.workspaceRoots) &&
  v.workspaceRoots.every(r => typeof r === 'string') &&
  typeof v.allowShell === 'boolean' &&
  typeof v.readonly === 'boolean';
const isLimits: FieldCheck = v => isPlainObject(v) && isSeq(v.timeoutMs) && isSeq(v.outputBytes);
/** A catalog: a non-empty array of objects, each with a non-empty string `name` (the package checks the rest). */
const isCatalog: FieldCheck = v => Array.isArray(v) && v.length > 0 && v.every(t => isPlainObject(t) && typeof t.name === 'string' && t.name !== '');
const isLayers: FieldCheck = v => isPlainObject(v) && typeof v.gate === 'boolean' && typeof v.hostCheck === 'boolean';

const OUTCOME: Record<string, [FieldCheck, boolean]> = {
  decision: [isDecision, true],
  reason: [isNullableString, true],
  detail: [isNullableString, true],
  ok: [isBool, true],
  output: [isString, false],
  error: [isString, false],
  durationMs: [isDuration, true],
  // the rule that decided the call (the package's RuleMatch, as the gate answered it): kept in the record
  rule: [v => v === null || isPlainObject(v), false],
};

/** For each type: field → [check, required]. */
const SHAPES: Record<MessageType, Record<string, [FieldCheck, boolean]>> = {
  init: {
    batchId: [isSeq, true],
    policy: [isPolicy, true],
    routes: [Array.isArray, true],
    rules: [v => v === null || (typeof v === 'object' && !Array.isArray(v)), false],
    driver: [isDriver, true],
    limits: [isLimits, true],
    shell: [isShell, true],
    sandboxSystem: [v => Array.isArray(v) && v.every(a => typeof a === 'string'), true],
    catalog: [isCatalog, false],
    layers: [isLayers, false],
  },
  call: { seq: [isSeq, true], name: [isString, true], arguments: [isAny, true] },
  result: { seq: [isSeq, true], ...OUTCOME },
  proxy: { id: [isSeq, true], seq: [isSeq, true], name: [isString, true], arguments: [isAny, true] },
  'proxy-result': { id: [isSeq, true], ...OUTCOME, durationMs: [isDuration, true] },
  event: { name: [isString, true], data: [isAny, false] },
  fd: { id: [isSeq, true], fd: [isSeq, true] },
  'fd-result': { id: [isSeq, true], path: [isNullableString, true] },
  done: {},
  error: { message: [isString, true] },
};

/** Checks one received message; throws ProtocolError naming what is wrong. */
export function parseMessage(raw: unknown): Message {
  if (!isPlainObject(raw)) throw new ProtocolError('message must be an object');
  if (raw.v !== PROTOCOL_VERSION) {
    throw new ProtocolError(`unsupported protocol version ${JSON.stringify(raw.v) ?? 'undefined'} (expected 1)`);
  }
  const type = raw.type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(SHAPES, type)) {
    throw new ProtocolError(`unknown message type ${JSON.stringify(type) ?? 'undefined'}`);
  }
  const shape = SHAPES[type as MessageType];
  for (const key of Object.keys(raw)) {
    if (key !== 'v' && key !== 'type' && !Object.prototype.hasOwnProperty.call(shape, key)) {
      throw new ProtocolError(`${type}: unknown field ${JSON.stringify(key)}`);
    }
  }
  for (const [key, [check, required]] of Object.entries(shape)) {
    const present = Object.prototype.hasOwnProperty.call(raw, key) && raw[key] !== undefined;
    if (!present) {
      if (required) throw new ProtocolError(`${type}: missing field ${key}`);
      continue;
    }
    if (!check(raw[key])) throw new ProtocolError(`${type}: invalid field ${key}`);
  }
  return raw as unknown as Message;
}

/** Builds a message (the `v` is added here, so no sender forgets it). */
type WithoutV<M> = M extends Message ? Omit<M, 'v'> : never;

export function message(body: WithoutV<Message>): Message {
  return { v: PROTOCOL_VERSION, ...body } as Message;
}

/** The types each side may receive. */
export const TO_WORKER: ReadonlySet<MessageType> = new Set(['init', 'call', 'proxy-result', 'fd-result', 'done']);
export const TO_MAIN: ReadonlySet<MessageType> = new Set(['result', 'proxy', 'event', 'fd', 'done', 'error']);

/** parseMessage plus a check that the type may travel in this direction. */
export function parseFor(direction: 'worker' | 'main', raw: unknown): Message {
  const m = parseMessage(raw);
  const allowed = direction === 'worker' ? TO_WORKER : TO_MAIN;
  if (!allowed.has(m.type)) throw new ProtocolError(`a ${m.type} message is not accepted by the ${direction}`);
  return m;
}
