// The chat WebSocket (/ws/netaclaw/chat, docs/runtime.md "The chat gateway"): one connection per page,
// opened when the first message is sent (or a session is opened) and kept for the next ones. A turn is
// `{ type: 'chat', … }` (or an approval's answer, `{ type: 'approval', … }`, which resumes a stopped turn);
// its events come until `done` or `error`; `{ type: 'cancel' }` stops it. A turn
// outlives the page: `{ type: 'attach', sessionId }` follows the running turn of a session reopened
// (`attached`, its events so far replayed, then the rest).
import { onBeforeUnmount, ref } from 'vue';
import { ApiError, chatSocketProtocols, chatSocketUrl } from '../server/api';
import type { ChatAttached, ChatEvent } from '../base/types';

export interface ChatRequest {
  agentId: number;
  message: string;
  sessionId?: number;
  sessionCwd?: string | null;
  workspaceRoots?: string[];
  shellPermitted?: boolean;
  writePermitted?: boolean;
}

export function useChatSocket() {
  const running = ref(false);
  let socket: WebSocket | null = null;
  let listener: ((e: ChatEvent) => void) | null = null;
  let attaching: ((a: ChatAttached) => void) | null = null;

  function finish(e: ChatEvent) {
    const l = listener;
    if (e.type === 'done' || e.type === 'error') {
      listener = null;
      running.value = false;
    }
    l?.(e);
  }

  function connect(): Promise<WebSocket> {
    if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(chatSocketUrl(), chatSocketProtocols());
      let opened = false;
      ws.onopen = () => {
        opened = true;
        socket = ws;
        resolve(ws);
      };
      ws.onmessage = (m) => {
        let e: ChatEvent | ChatAttached;
        try {
          e = JSON.parse(String(m.data)) as ChatEvent | ChatAttached;
        } catch {
          return;
        }
        if (e.type === 'attached') attaching?.(e);
        else finish(e);
      };
      ws.onclose = (ev) => {
        if (socket === ws) socket = null;
        if (!opened) {
          reject(new ApiError(0, 'connection_refused', `the chat connection was refused (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})`));
          return;
        }
        // a turn still waiting for its end will not get it
        if (listener) finish({ type: 'error', sessionId: null, code: 'connection_closed', message: `the chat connection closed (${ev.code})` });
      };
    });
  }

  /** Sends the frame that starts a turn; `onEvent` gets every event of the turn, the last one `done` or `error`. */
  async function startTurn(frame: Record<string, unknown>, onEvent: (e: ChatEvent) => void): Promise<void> {
    if (running.value) throw new ApiError(0, 'busy', 'a message is being answered');
    running.value = true;
    let ws: WebSocket;
    try {
      ws = await connect();
    } catch (e) {
      running.value = false;
      throw e;
    }
    listener = onEvent;
    ws.send(JSON.stringify(frame));
  }

  /** Sends one message; `onEvent` gets every event of the turn, the last one `done` or `error`. */
  function send(request: ChatRequest, onEvent: (e: ChatEvent) => void): Promise<void> {
    return startTurn({ type: 'chat', ...request }, onEvent);
  }

  /**
   * Answers the main agent's approval (`{ type: 'approval', id, answer }`): its stopped turn resumes and
   * `onEvent` gets its events as `send`'s does, the last one `done` or `error`.
   */
  function answer(request: { id: number; answer: 'once' | 'session' | 'deny' }, onEvent: (e: ChatEvent) => void): Promise<void> {
    return startTurn({ type: 'approval', ...request }, onEvent);
  }

  /**
   * Follows the running turn of `sessionId`, if there is one on the server: `onAttached` gets the answer
   * (before any replayed event), then `onEvent` every event of the turn as `send`'s does. Resolves with
   * whether a turn runs.
   */
  async function attach(sessionId: number, onAttached: (a: ChatAttached) => void, onEvent: (e: ChatEvent) => void): Promise<boolean> {
    if (running.value) return false;
    const ws = await connect();
    return new Promise((resolve) => {
      attaching = (a) => {
        if (a.sessionId !== sessionId) return;
        attaching = null;
        if (a.running) {
          running.value = true;
          listener = onEvent;
        }
        onAttached(a);
        resolve(a.running);
      };
      ws.send(JSON.stringify({ type: 'attach', sessionId }));
    });
  }

  function cancel(): void {
    if (running.value && socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'cancel' }));
  }

  function close(): void {
    listener = null;
    running.value = false;
    socket?.close();
    socket = null;
  }

  onBeforeUnmount(close);
  return { running, send, answer, attach, cancel, close };
}
