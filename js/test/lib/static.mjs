// A static server on 127.0.0.1 for the browser tests: the built package under /pkg/ (files of pkg/ only)
// and the test's own pages and files, each request recorded by path.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = resolve(ROOT, 'pkg');
const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html' };

/**
 * Serves `routes` (`{ '/path': { type, body } }`) and pkg/ under /pkg/. Resolves to the server, its
 * `origin` and `requests`, the paths asked for in order.
 */
export async function serveStatic(routes = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://127.0.0.1');
    requests.push(pathname);
    const send = (status, type, data) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(data);
    };
    if (Object.hasOwn(routes, pathname)) return send(200, routes[pathname].type, routes[pathname].body);
    if (pathname.startsWith('/pkg/')) {
      const file = resolve(PKG, `.${decodeURIComponent(pathname.slice('/pkg'.length))}`);
      if (file.startsWith(PKG + sep) && existsSync(file) && statSync(file).isFile())
        return send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
    }
    return send(404, 'text/plain', 'not found');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, origin: `http://127.0.0.1:${server.address().port}`, requests };
}

/** Headless Chromium (Debian's, through playwright-core), as every browser test launches it. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Opens `origin + path` in a fresh headless Chromium page and answers what `fn(page)` answers, with the
 * page's uncaught errors (`{ result, errors }`); the browser is closed afterwards.
 */
export async function withPage(origin, path, fn) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}${path}`);
    return { result: await fn(page), errors };
  } finally {
    await browser.close();
  }
}
