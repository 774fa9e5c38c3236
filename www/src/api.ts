// Thin client of the backend (docs/backend-api.md). Every /admin route gets the admin token.
import { ref } from 'vue';
import type { AgentInput, AgentRow, ChannelView, Page, PreviewPromptResult, SyncResult, ToolRow } from './types';
import type { ToolManifest } from '@netaclaw/tool-policy';

const TOKEN_KEY = 'netaclaw.adminToken';

function initialToken(): string {
  // `?token=` (the demo prints such a URL) wins and is remembered.
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl) {
    localStorage.setItem(TOKEN_KEY, fromUrl);
    return fromUrl;
  }
  return localStorage.getItem(TOKEN_KEY) ?? '';
}

export const adminToken = ref(initialToken());

export function setAdminToken(token: string): void {
  adminToken.value = token.trim();
  if (adminToken.value) localStorage.setItem(TOKEN_KEY, adminToken.value);
  else localStorage.removeItem(TOKEN_KEY);
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

/** The text of an error for the page (an ApiError's message, or any other error's). */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Called when a request is answered 401, so the shell can open the login box. */
export const unauthorized = ref(false);

async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (adminToken.value) headers.Authorization = `Bearer ${adminToken.value}`;
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
    if (res.status === 401) unauthorized.value = true;
    throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? res.statusText, err?.errors ?? [], err?.current);
  }
  unauthorized.value = false;
  return (json as { data: T }).data;
}

function qs(params: Record<string, string | number>): string {
  return '?' + new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
}

const TOOL = '/admin/netaclaw/tool';
const AGENT = '/admin/netaclaw/agent';
const CHANNEL = '/admin/netaclaw/channel';

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
    update: (idOrName: { id?: number; name?: string }, patch: Record<string, unknown>) =>
      request<ToolRow>('POST', `${TOOL}/update`, { ...patch, ...idOrName }),
    all: () => request<ToolRow[]>('GET', `${TOOL}/all`),
    /** The backend's merged catalog (builtin tools, then NETACLAW_CATALOG_FILE's), as manifests. */
    catalog: () => request<ToolManifest[]>('GET', `${TOOL}/catalog`),
    sync: () => request<SyncResult>('POST', `${TOOL}/sync`),
    forAgent: () => request<{ toolsets: string[]; tools: ToolRow[]; profiles: unknown[] }>('GET', `${TOOL}/forAgent`),
    diagnostic: (body: Record<string, unknown>) => request<unknown>('POST', `${TOOL}/diagnostic`, body),
  },
  channel: {
    page: (q: { page?: number; size?: number }) => request<Page<ChannelView>>('POST', `${CHANNEL}/page`, q),
  },
  agent: {
    page: (q: { page?: number; size?: number; name?: string }) => request<Page<AgentRow>>('POST', `${AGENT}/page`, q),
    info: (id: number) => request<AgentRow>('GET', `${AGENT}/info${qs({ id })}`),
    add: (a: AgentInput) => request<AgentRow>('POST', `${AGENT}/add`, a),
    /** With `version`, a save over someone else's newer one is refused (ApiError 409 `conflict`). */
    update: (id: number, a: AgentInput, version?: number) =>
      request<AgentRow>('POST', `${AGENT}/update`, version === undefined ? { ...a, id } : { ...a, id, version }),
    previewPrompt: (body: { id: number } | { agent: AgentInput }) =>
      request<PreviewPromptResult>('POST', `${AGENT}/previewPrompt`, body),
  },
};
