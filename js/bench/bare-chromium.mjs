// A Chromium driven over its DevTools pipe at the browser level only: it opens a page in a fresh
// browser context (nothing cached, no connection open) and closes the context, and attaches to no page.
// No DevTools session is on the visited page, so no event of its requests, responses or data is sent
// anywhere while it loads: what it costs is the browser's own work, as on a user's first visit.
// The page reports its own figures (browser.mjs's visit pages post them to the file server).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Launches `executable` with `args` and a profile of its own; answers { send(method, params), close() }. */
export async function launchBareChromium(executable, args) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-bare-chromium-'));
  const child = spawn(executable, [...args, '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const toBrowser = child.stdio[3];
  const fromBrowser = child.stdio[4];
  const pending = new Map();
  let next = 0;
  let buffer = '';
  let exited = null;
  const failAll = (error) => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  child.on('exit', (code, signal) => {
    exited = new Error(`bare Chromium exited (${signal ?? code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    failAll(exited);
  });
  fromBrowser.setEncoding('utf8');
  fromBrowser.on('data', (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      const waiter = message.id !== undefined && pending.get(message.id);
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      if (exited) return reject(exited);
      const id = ++next;
      pending.set(id, { resolve, reject, method });
      toBrowser.write(JSON.stringify({ id, method, params }) + '\0');
    });
  const version = await send('Browser.getVersion');
  return {
    product: version.product,
    send,
    async close() {
      if (!exited) {
        await send('Browser.close').catch(() => {});
        await new Promise((resolve) => (exited ? resolve() : child.once('exit', resolve)));
      }
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
