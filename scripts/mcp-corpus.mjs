#!/usr/bin/env node
// Records the `tools/list` of published MCP servers into js/backend/test/fixtures/mcp-corpus/<server>.json
// (package, version, the server's own name and version, the date, the tools), for the corpus test
// (js/test/mcp-corpus.test.mjs), which reads these fixtures only.
//
// Each server is installed from its registry into a temporary folder (npm: `npm install --prefix`;
// PyPI: a virtual environment), started once over stdio with a temporary HOME and placeholder API
// keys (none of them is used: only `initialize` and `tools/list` are sent), and stopped.
//
//   node scripts/mcp-corpus.mjs            every server below
//   node scripts/mcp-corpus.mjs time git   only these
//
// Needs the npm registry and PyPI; python3 (3.10 or later) with venv.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'js/backend/test/fixtures/mcp-corpus');

// name: the fixture's name; npm or pypi: the package; bin: the command it installs; args: its arguments
// (`{dir}` is a temporary folder).
const SERVERS = [
  { name: 'filesystem', npm: '@modelcontextprotocol/server-filesystem', bin: 'mcp-server-filesystem', args: ['{dir}'] },
  { name: 'memory', npm: '@modelcontextprotocol/server-memory', bin: 'mcp-server-memory', args: [] },
  { name: 'everything', npm: '@modelcontextprotocol/server-everything', bin: 'mcp-server-everything', args: ['stdio'] },
  { name: 'sequential-thinking', npm: '@modelcontextprotocol/server-sequential-thinking', bin: 'mcp-server-sequential-thinking', args: [] },
  { name: 'github', npm: '@modelcontextprotocol/server-github', bin: 'mcp-server-github', args: [] },
  { name: 'brave-search', npm: '@modelcontextprotocol/server-brave-search', bin: 'mcp-server-brave-search', args: [] },
  { name: 'context7', npm: '@upstash/context7-mcp', bin: 'context7-mcp', args: [] },
  { name: 'playwright', npm: '@playwright/mcp', bin: 'playwright-mcp', args: ['--headless'] },
  { name: 'time', pypi: 'mcp-server-time', bin: 'mcp-server-time', args: ['--local-timezone', 'UTC'] },
  { name: 'git', pypi: 'mcp-server-git', bin: 'mcp-server-git', args: [] },
  { name: 'fetch', pypi: 'mcp-server-fetch', bin: 'mcp-server-fetch', args: [] },
  { name: 'calculator', pypi: 'mcp-server-calculator', bin: 'mcp-server-calculator', args: [] },
  { name: 'wikipedia', pypi: 'wikipedia-mcp', bin: 'wikipedia-mcp', args: [] },
  { name: 'duckduckgo', pypi: 'duckduckgo-mcp-server', bin: 'duckduckgo-mcp-server', args: [] },
  { name: 'excel', pypi: 'excel-mcp-server', bin: 'excel-mcp-server', args: ['stdio'] },
];

const ENV = {
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  BRAVE_API_KEY: 'placeholder',
  GITHUB_PERSONAL_ACCESS_TOKEN: 'placeholder',
  EXCEL_FILES_PATH: '',
};

/** Installs one server into `dir`; answers the command to run and the package's version. */
function install(server, dir) {
  if (server.npm) {
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--ignore-scripts', server.npm], { stdio: ['ignore', 'ignore', 'inherit'] });
    const version = JSON.parse(readFileSync(join(dir, 'node_modules', server.npm, 'package.json'), 'utf8')).version;
    return { command: join(dir, 'node_modules/.bin', server.bin), version };
  }
  const venv = join(dir, 'venv');
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', server.pypi], { stdio: ['ignore', 'ignore', 'inherit'] });
  const show = execFileSync(join(venv, 'bin/pip'), ['show', server.pypi], { encoding: 'utf8' });
  return { command: join(venv, 'bin', server.bin), version: /^Version: (.+)$/m.exec(show)[1].trim() };
}

/** Starts `command` over stdio, sends `initialize` and `tools/list` (every page), stops it. */
function toolsList(command, args, env, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    let stderr = '';
    let next = 1;
    const waiting = new Map();
    const timer = setTimeout(() => finish(new Error(`no answer in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
    const finish = (error, value) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(value);
    };
    child.on('error', (e) => finish(e));
    child.on('exit', (code) => finish(new Error(`exited with ${code}; stderr: ${stderr.slice(-2000)}`)));
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      buffer += d;
      let i;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (!line.startsWith('{')) continue;
        const message = JSON.parse(line);
        const w = waiting.get(message.id);
        if (w) {
          waiting.delete(message.id);
          if (message.error) finish(new Error(JSON.stringify(message.error)));
          else w(message.result);
        }
      }
    });
    const request = (method, params) =>
      new Promise((ok) => {
        const id = next++;
        waiting.set(id, ok);
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      });
    (async () => {
      const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'netaclaw-mcp-corpus', version: '1' } });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      const tools = [];
      let cursor;
      do {
        const page = await request('tools/list', cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      finish(null, { serverInfo: init.serverInfo, protocolVersion: init.protocolVersion, tools });
    })().catch((e) => finish(e));
  });
}

const only = process.argv.slice(2);
mkdirSync(out, { recursive: true });
let failed = 0;
for (const server of SERVERS.filter((s) => only.length === 0 || only.includes(s.name))) {
  const dir = mkdtempSync(join(tmpdir(), `mcp-corpus-${server.name}-`));
  try {
    const { command, version } = install(server, dir);
    const home = join(dir, 'home');
    mkdirSync(home);
    const args = server.args.map((a) => a.replaceAll('{dir}', dir));
    const listed = await toolsList(command, args, { ...ENV, HOME: home });
    const fixture = {
      server: server.name,
      registry: server.npm ? 'npm' : 'pypi',
      package: server.npm ?? server.pypi,
      version,
      serverInfo: listed.serverInfo,
      protocolVersion: listed.protocolVersion,
      recorded: new Date().toISOString().slice(0, 10),
      tools: listed.tools,
    };
    writeFileSync(join(out, `${server.name}.json`), JSON.stringify(fixture, null, 2) + '\n');
    process.stdout.write(`${server.name}: ${fixture.package} ${version}, ${listed.tools.length} tools\n`);
  } catch (e) {
    failed++;
    process.stderr.write(`${server.name}: ${e.message}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
