// Thin client of the backend (docs/backend-api.md). Requests are authenticated by the login cookie.
import { errorSentence } from './errors';
import { ref } from 'vue';
import { createParser } from 'eventsource-parser';
import type { AgentInput, AgentRow, ChannelView, Page, PreviewPromptResult, SyncResult, ToolRow } from '../base/types';
import type { CheckRulesInput, RuleCheck, RuntimeDiagnostic, ToolManifest } from '@netaclaw/tool-policy';
import type {
  ApprovalAnswered,
  BatchRecord,
  BatchRow,
  BatchRunInput,
  ChannelInput,
  EscalationRecord,
  EscalationStatus,
  GlobalRules,
  McpInput,
  McpServerView,
  SkillView,
  GlobalRulesView,
  SessionFields,
  SessionInfo,
  SessionRow,
} from '../base/types';

/**
 * Whether this browser is logged in: the backend's answer (`GET /auth/state`, a login, a 401), never a
 * guess — null until the first answer. The admin token is sent once, to `POST /auth/login`, which
 * answers with an HttpOnly, SameSite=Strict session cookie and a request key; the pages keep no token
 * (no URL, no storage). The request key is kept in this origin's localStorage and sent with every request
 * (`X-Netaclaw-Request-Key`) and with the chat WebSocket (a subprotocol): browsers send the cookie to every
 * port of the host, but another port is another origin and cannot read this storage, so the cookie alone
 * (replayed from elsewhere) opens nothing. localStorage rather than sessionStorage: every tab of the
 * pages shares the one session (a second tab does not have to log in again, which would end the first's).
 */
export const loggedIn = ref<boolean | null>(null);

export const REQUEST_KEY_STORAGE = 'netaclaw.requestKey';

/** The login's request key (null: none, or storage unavailable). */
export function requestKey(): string | null {
  try {
    return localStorage.getItem(REQUEST_KEY_STORAGE);
  } catch {
    return null;
  }
}

function setRequestKey(key: string | null): void {
  try {
    if (key === null) localStorage.removeItem(REQUEST_KEY_STORAGE);
    else localStorage.setItem(REQUEST_KEY_STORAGE, key);
  } catch {
    /* storage unavailable: requests go without the key and are answered 401 */
  }
}

/** The headers every request of the pages carries besides its own. */
function authHeaders(): Record<string, string> {
  const key = requestKey();
  return key === null ? {} : { 'X-Netaclaw-Request-Key': key };
}

export async function refreshLogin(): Promise<void> {
  try {
    loggedIn.value = (await request<{ loggedIn: boolean }>('GET', '/auth/state')).loggedIn;
  } catch {
    loggedIn.value = false;
  }
}

/** Exchanges the token for the session cookie and its request key; rejects with the backend's ApiError (401, 429, …). */
export async function login(token: string): Promise<void> {
  const r = await request<{ loggedIn: boolean; requestKey: string }>('POST', '/auth/login', { token: token.trim() });
  setRequestKey(r.requestKey);
  loggedIn.value = true;
  unauthorized.value = false;
  const waiting = loginWaiters;
  loginWaiters = [];
  for (const go of waiting) go();
}

/**
 * The login ended while a page was shown (it expired, or was ended elsewhere): the shell keeps the page
 * (what was typed stays), opens the login box, and what the page asked for goes again after the next login.
 */
export const sessionExpired = ref(false);
let loginWaiters: Array<() => void> = [];

/** Resolves at the next login. */
export function afterNextLogin(): Promise<void> {
  return new Promise((resolve) => loginWaiters.push(resolve));
}

/** A 401 to a page's request: logged out; `true` when a page was shown (it is kept, its requests wait for the next login). */
function loginLost(): boolean {
  const kept = loggedIn.value === true || sessionExpired.value;
  unauthorized.value = true;
  sessionExpired.value = kept;
  loggedIn.value = false;
  return kept;
}

/**
 * After a failure that may be an ended login (a refused chat WebSocket, which carries no status): asks the
 * backend; when the login is gone, the login box opens and this resolves `true` once the user logged in
 * again (the caller then does again what failed), else `false` at once.
 */
export async function reloginIfExpired(): Promise<boolean> {
  let state: boolean;
  try {
    state = (await request<{ loggedIn: boolean }>('GET', '/auth/state')).loggedIn;
  } catch {
    return false;
  }
  if (state) return false;
  if (!loginLost()) return false;
  await afterNextLogin();
  return true;
}

/** Ends the session on the backend (every instance refuses its cookie from then on) and forgets its key. */
export async function logout(): Promise<void> {
  await request<{ loggedIn: boolean }>('POST', '/auth/logout', {}).catch(() => undefined);
  setRequestKey(null);
  sessionExpired.value = false;
  loginWaiters = [];
  loggedIn.value = false;
}

export interface FieldError {
  field: string;
  code: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    /** 409 conflict: the record as it is now. */
    readonly current?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The sentence a page shows for an error, in the page's language: an ApiError by its code (the
 * dictionaries of `errors.ts`), never the backend's English message or a code.
 */
export function errorText(e: unknown): string {
  return errorSentence(e instanceof ApiError ? e : new ApiError(0, 'client_error', errorMessageOf(e)));
}

function errorMessageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Called when a request is answered 401, so the shell can open the login box. */
export const unauthorized = ref(false);

/**
 * One request of the pages. Answered 401 while a page is shown (the login ended meanwhile), it waits for
 * the next login and goes once more: the user logs in again in place and loses nothing they did.
 */
async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown, again = true): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, 'network_error', e instanceof Error ? e.message : String(e));
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; errors?: FieldError[]; current?: unknown } } | null)?.error;
    if (res.status === 401 && !path.startsWith('/auth/') && loginLost() && again) {
      await afterNextLogin();
      return request<T>(method, path, body, false);
    }
    throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? res.statusText, err?.errors ?? [], err?.current);
  }
  if (!path.startsWith('/auth/')) unauthorized.value = false;
  return (json as { data: T }).data;
}

function qs(params: Record<string, string | number | undefined>): string {
  const set = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined);
  return '?' + new URLSearchParams(set.map(([k, v]) => [k, String(v)])).toString();
}

const TOOL = '/admin/netaclaw/tool';
const AGENT = '/admin/netaclaw/agent';
const CHANNEL = '/admin/netaclaw/channel';
const SESSION = '/admin/netaclaw/session';
const SUBAGENT = '/admin/netaclaw/subagent';
const ESCALATION = '/admin/netaclaw/escalation';
const MCP = '/admin/netaclaw/mcp';
const RULES = '/admin/netaclaw/rules';
const SKILL = '/admin/netaclaw/skill'; // policy-vocabulary: a route's path (its segments are words, not kinds)

export interface ToolPageQuery {
  page?: number;
  size?: number;
  name?: string;
  toolset?: string;
  status?: number;
  capability?: string;
}

export const api = {
  health: () => request<{ status: string }>('GET', '/health'),
  tool: {
    page: (q: ToolPageQuery) => request<Page<ToolRow>>('POST', `${TOOL}/page`, q),
    info: (name: string) => request<ToolRow>('GET', `${TOOL}/info${qs({ name })}`),
    update: (idOrName: { id?: number; name?: string }, patch: Record<string, unknown>) => request<ToolRow>('POST', `${TOOL}/update`, { ...patch, ...idOrName }),
    all: () => request<ToolRow[]>('GET', `${TOOL}/all`),
    /** The backend's merged catalog (builtin tools, then NETACLAW_CATALOG_FILE's), as manifests. */
    catalog: () => request<ToolManifest[]>('GET', `${TOOL}/catalog`),
    sync: () => request<SyncResult>('POST', `${TOOL}/sync`),
    forAgent: () => request<{ toolsets: string[]; tools: ToolRow[]; profiles: unknown[] }>('GET', `${TOOL}/forAgent`),
    diagnostic: (body: Record<string, unknown>) => request<unknown>('POST', `${TOOL}/diagnostic`, body),
  },
  agent: {
    page: (q: { page?: number; size?: number; name?: string }) => request<Page<AgentRow>>('POST', `${AGENT}/page`, q),
    info: (id: number) => request<AgentRow>('GET', `${AGENT}/info${qs({ id })}`),
    add: (a: AgentInput) => request<AgentRow>('POST', `${AGENT}/add`, a),
    /** With `version`, a save over someone else's newer one is refused (ApiError 409 `conflict`). */
    update: (id: number, a: AgentInput, version?: number) =>
      request<AgentRow>('POST', `${AGENT}/update`, version === undefined ? { ...a, id } : { ...a, id, version }),
    previewPrompt: (body: { id: number } | { agent: AgentInput }) => request<PreviewPromptResult>('POST', `${AGENT}/previewPrompt`, body),
    /** With its sessions; rejects with 409 `agent_running` or `agent_in_crew` (docs/backend-api.md "Deleting"). */
    delete: (id: number) => request<{ id: number; sessions: number }>('POST', `${AGENT}/delete`, { id }),
  },
  channel: {
    page: (q: { page?: number; size?: number } = {}) => request<Page<ChannelView>>('POST', `${CHANNEL}/page`, q),
    info: (id: number) => request<ChannelView>('GET', `${CHANNEL}/info${qs({ id })}`),
    add: (c: ChannelInput) => request<ChannelView>('POST', `${CHANNEL}/add`, c),
    /** Without `apiKey` the stored key is kept; `apiKey: null` removes it. */
    update: (id: number, c: ChannelInput) => request<ChannelView>('POST', `${CHANNEL}/update`, { ...c, id }),
    delete: (id: number) => request<{ id: number; defaultChannelId: number | null }>('POST', `${CHANNEL}/delete`, { id }),
  },
  mcp: {
    page: (q: { page?: number; size?: number } = {}) => request<Page<McpServerView>>('POST', `${MCP}/page`, q),
    info: (id: number) => request<McpServerView>('GET', `${MCP}/info${qs({ id })}`),
    add: (m: McpInput) => request<McpServerView>('POST', `${MCP}/add`, m),
    update: (id: number, m: McpInput) => request<McpServerView>('POST', `${MCP}/update`, { ...m, id }),
    delete: (id: number) => request<{ id: number }>('POST', `${MCP}/delete`, { id }),
    /** Starts or reaches every enabled server again, lists its tools and runs the catalog sync. */
    refresh: () => request<{ servers: McpServerView[]; sync: SyncResult }>('POST', `${MCP}/refresh`, {}),
  },
  skill: {
    /** The skills installed in the backend's skills folder, by name, with what each says of itself. */
    list: () => request<{ list: SkillView[] }>('GET', `${SKILL}/list`),
  },
  rules: {
    /** The stored global rules (null: none), the package's defaults and the version to save with. */
    info: () => request<GlobalRulesView>('GET', `${RULES}/info`),
    /** A stale `version` is refused (ApiError 409 `conflict`, `current` the stored rules); invalid rules 400 with `errors[].field`. */
    update: (rules: GlobalRules | null, version: number) => request<GlobalRulesView>('POST', `${RULES}/update`, { rules, version }),
    /** The backend's `checkRules` on the stored rules of an agent or a session, each level replaced by `rules.<level>` when given. */
    try: (body: Omit<CheckRulesInput, 'rules'> & { agentId?: number; sessionId?: number; rules?: CheckRulesInput['rules'] }) =>
      request<RuleCheck>('POST', `${RULES}/try`, body),
  },
  session: {
    page: (q: { page?: number; size?: number; agentId?: number }) => request<{ list: SessionRow[]; total: number }>('GET', `${SESSION}/page${qs(q)}`),
    info: (id: number) => request<SessionInfo>('GET', `${SESSION}/info${qs({ id })}`),
    /** With everything that is its; rejects with 409 `session_running` while a turn of it runs. */
    delete: (id: number) => request<{ id: number }>('POST', `${SESSION}/delete`, { id }),
  },
  chat: {
    /** The agent's prompt, offered tools and model channel for a chat session with these fields. */
    preview: (agentId: number, fields: Partial<SessionFields>) =>
      request<PreviewPromptResult & { systemPrompt: string; channel: ChannelView | null; demoModel?: boolean }>('POST', `${AGENT}/previewPrompt`, {
        id: agentId,
        ...fields,
      }),
    /** The routes of a chat session's main agent, as the executor computes them (the backend's diagnostic). */
    routes: (agentId: number, fields: Partial<SessionFields>) => request<RuntimeDiagnostic>('POST', `${TOOL}/diagnostic`, { agentId, ...fields }),
  },
  approval: {
    /** A sub-agent's approval (its turn runs on): `answered`. Rejects with 409 `already_answered` when it has an answer. */
    answer: (id: number, answer: 'once' | 'session' | 'deny') => request<ApprovalAnswered>('POST', '/api/netaclaw/approval/answer', { id, answer }),
  },
  escalation: {
    page: (q: { sessionId?: number; status?: EscalationStatus; page?: number; size?: number }) =>
      request<Page<EscalationRecord>>('POST', `${ESCALATION}/page`, q),
    /** Rejects with ApiError 409 `escalation_resolved` when someone resolved it first. */
    resolve: (id: number, resolution: string) => request<EscalationRecord>('POST', `${ESCALATION}/resolve`, { id, resolution }),
  },
  subagent: {
    run: (body: BatchRunInput) => request<BatchRecord>('POST', `${SUBAGENT}/run`, body),
    page: (q: { page?: number; size?: number; agentId?: number; sessionId?: number }) =>
      request<{ list: BatchRow[]; total: number }>('GET', `${SUBAGENT}/page${qs(q)}`),
    info: (id: number) => request<BatchRecord>('GET', `${SUBAGENT}/info${qs({ id })}`),
  },
};

/** The chat WebSocket of this origin (the login cookie authenticates the handshake). */
export function chatSocketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws/netaclaw/chat`;
}

/**
 * The subprotocols the chat WebSocket offers: `netaclaw` (the one the backend answers with) and the login's
 * request key as `netaclaw-key.<key>` (a browser cannot set a header on a WebSocket).
 */
export function chatSocketProtocols(): string[] {
  const key = requestKey();
  return key === null ? ['netaclaw'] : ['netaclaw', `netaclaw-key.${key}`];
}

/** One Server-Sent Event: its `event:` name and its JSON `data:`. */
export interface StreamEvent {
  type: string;
  data: unknown;
}

/**
 * Reads `GET /admin/netaclaw/subagent/events?id=` — Server-Sent Events, with `fetch`, a stream reader
 * and `eventsource-parser` (errors come back as JSON answers `EventSource` could not read). Resolves when the
 * stream ends (after `done`), rejects with an ApiError for an error answer or a broken stream;
 * `signal` stops reading.
 */
export async function streamBatchEvents(id: number, onEvent: (e: StreamEvent) => void, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...authHeaders() };
  let res: Response;
  try {
    res = await fetch(`${SUBAGENT}/events${qs({ id })}`, { headers, signal });
  } catch (e) {
    if (signal.aborted) return;
    throw new ApiError(0, 'network_error', e instanceof Error ? e.message : String(e));
  }
  if (!res.ok || !res.body) {
    const err = ((await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null)?.error;
    if (res.status === 401) loginLost();
    throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? res.statusText);
  }
  let bad: Error | null = null;
  const parser = createParser({
    onEvent: (m) => {
      try {
        onEvent({ type: m.event ?? 'message', data: JSON.parse(m.data) as unknown });
      } catch (e) {
        bad ??= e instanceof Error ? e : new Error(String(e));
      }
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      if (bad) throw new ApiError(0, 'bad_event', (bad as Error).message);
    }
  } catch (e) {
    if (signal.aborted) return;
    if (e instanceof ApiError) throw e;
    throw new ApiError(0, 'network_error', e instanceof Error ? e.message : String(e));
  } finally {
    reader.releaseLock();
  }
}
