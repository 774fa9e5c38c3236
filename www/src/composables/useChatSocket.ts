// The chat WebSocket (/ws/netaclaw/chat, docs/runtime.md "The chat gateway"): one connection per page,
// opened when the first message is sent and kept for the next ones. A turn is `{ type: 'chat', … }`;
// its events come until `done` or `error`; `{ type: 'cancel' }` stops it. Closing the connection (the
// page goes away) cancels a turn in progress, as the gateway does.
import { onBeforeUnmount, ref } from 'vue';
import { chatSocketUrl } from '../api';
import type { ChatEvent } from '../types';

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
      const ws = new WebSocket(chatSocketUrl());
      let opened = false;
      ws.onopen = () => {
        opened = true;
        socket = ws;
        resolve(ws);
      };
      ws.onmessage = (m) => {
        let e: ChatEvent;
        try {
          e = JSON.parse(String(m.data)) as ChatEvent;
        } catch {
          return;
        }
        finish(e);
      };
      ws.onclose = (ev) => {
        if (socket === ws) socket = null;
        if (!opened) {
          reject(new Error(`the chat connection was refused (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})`));
          return;
        }
        // a turn still waiting for its end will not get it
        if (listener) finish({ type: 'error', sessionId: null, code: 'connection_closed', message: `the chat connection closed (${ev.code})` });
      };
    });
  }

  /** Sends one message; `onEvent` gets every event of the turn, the last one `done` or `error`. */
  async function send(request: ChatRequest, onEvent: (e: ChatEvent) => void): Promise<void> {
    if (running.value) throw new Error('a message is being answered');
    running.value = true;
    let ws: WebSocket;
    try {
      ws = await connect();
    } catch (e) {
      running.value = false;
      throw e;
    }
    listener = onEvent;
    ws.send(JSON.stringify({ type: 'chat', ...request }));
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
  return { running, send, cancel, close };
}
