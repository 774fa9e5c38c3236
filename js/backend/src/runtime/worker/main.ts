/**
 * The sub-agent worker process (started by WorkerHost with `child_process.fork`, under Node's permission
 * model). It waits for `init`, then decides every `call` with the gate and the host symlink check, runs
 * `worker-local` calls with its own registry and operations, sends `main-process-proxy` calls to the main
 * process as `proxy`, and refuses denied calls with their reason. Calls run one at a time, in order.
 * A malformed message is answered with `error` and the worker exits.
 */
import * as fs from 'fs';
import { NodeFileSystemOperations } from '../operations/fs';
import { ShellProcessOperations } from '../operations/process';
import { NodeSearchOperations } from '../operations/search';
import { CallMessage, CallOutcome, FdResultMessage, InitMessage, message, Message, parseFor, ProxyResultMessage } from '../protocol';
import { prepareFirstCall, runHere, RunnerContext } from '../runner';
import { LOCAL_HANDLERS } from '../tools/local';
import { ToolRegistry } from '../tools/registry';
import { workerSandbox } from '../sandboxes';
import { DECISIONS } from '../codes';
import { policy, setActiveCatalog, ToolSchema } from '../../wire/policy';
import { errorMessage, errorStack } from '../../lib/errortext';

function send(m: Message): void {
  if (process.send) process.send(m);
}

function fatal(text: string): void {
  send(message({ type: 'error', message: text }));
  // Let the message leave before exiting.
  process.disconnect?.();
  setTimeout(() => process.exit(2), 50).unref();
}

let ctx: RunnerContext | null = null;
let shell: ShellProcessOperations | null = null;
let nextProxyId = 1;
const pendingProxies = new Map<number, (m: ProxyResultMessage) => void>();
let queue: Promise<void> = Promise.resolve();
/** Calls received so far. */
let calls = 0;
let nextFdId = 1;
const pendingFds = new Map<number, (m: FdResultMessage) => void>();

/** Where one of this worker's descriptors points: the main process reads /proc/<worker>/fd/N. */
function askFd(fd: number): Promise<string | null> {
  const id = nextFdId++;
  return new Promise(resolve => {
    pendingFds.set(id, m => resolve(m.path));
    send(message({ type: 'fd', id, fd }));
  });
}

function start(init: InitMessage): void {
  if (init.catalog) {
    try {
      // The package checks the catalog as a whole (entries, names unique): a worker never runs on a bad one.
      policy().syncCatalog(init.catalog as ToolSchema[], []);
    } catch (err) {
      return fatal(`rejected message: init: invalid field catalog: ${errorMessage(err)}`);
    }
    // the routes were computed from the main process's catalog: the gate decides with the same one
    setActiveCatalog(init.catalog as ToolSchema[]);
  }
  if (init.shell === 'sandboxed') {
    // Inside its sandbox the worker is the sandbox's user: a root that user cannot enter is said at once,
    // not found out call by call as files that seem missing.
    for (const root of init.policy.workspaceRoots) {
      try {
        fs.accessSync(root, fs.constants.R_OK | fs.constants.X_OK);
      } catch {
        return fatal(
          `the workspace root ${root} cannot be read by the sandbox's user (uid ${process.getuid?.()}): give the folder to that user, or set NETACLAW_SANDBOX_USER to a user that can read it`
        );
      }
    }
  }
  const sandbox = workerSandbox(init.shell);
  shell = new ShellProcessOperations(sandbox, init.sandboxSystem);
  ctx = {
    policy: init.policy,
    routes: init.routes,
    rules: init.rules ?? null,
    ops: {
      // where an opened descriptor points: asked of the main process (operations/confined.ts)
      fs: new NodeFileSystemOperations(askFd),
      search: new NodeSearchOperations(askFd),
      process: shell,
    },
    sandbox,
    tools: new ToolRegistry(LOCAL_HANDLERS).table('worker'),
    agentId: null,
    services: null,
    layers: init.layers,
  };
  send(message({ type: 'event', name: 'ready', data: { pid: process.pid } }));
  // While it waits for its first call, the work of a first call that does not depend on the call (its
  // gate's checker made and compiled, ...), given up once a call has come.
  void prepareFirstCall(ctx, () => calls > 0);
}

async function handleCall(c: CallMessage): Promise<void> {
  const context = ctx!;
  const started = Date.now();
  const { gate, outcome } = await runHere(context, DECISIONS.workerLocal, c.name, c.arguments);
  let result: CallOutcome;
  if (outcome) {
    result = outcome;
  } else {
    // main-process-proxy: ask the main process, which checks the call again against its own copy.
    const id = nextProxyId++;
    const answer = await new Promise<ProxyResultMessage>(resolve => {
      pendingProxies.set(id, resolve);
      send(message({ type: 'proxy', id, seq: c.seq, name: c.name, arguments: c.arguments }));
    });
    result = {
      decision: answer.decision,
      reason: answer.reason,
      detail: answer.detail,
      ok: answer.ok,
      ...(answer.output !== undefined ? { output: answer.output } : {}),
      ...(answer.error !== undefined ? { error: answer.error } : {}),
      durationMs: Date.now() - started,
    };
    void gate;
  }
  send(message({ type: 'result', seq: c.seq, ...result }));
}

/** Hands an answer to whoever asked for it (by id); an answer nobody asked for breaks the protocol. */
function settle<M extends ProxyResultMessage | FdResultMessage>(pending: Map<number, (m: M) => void>, m: M): void {
  const resolve = pending.get(m.id);
  if (!resolve) return fatal(`rejected message: ${m.type} for unknown id ${m.id}`);
  pending.delete(m.id);
  resolve(m);
}

process.on('message', raw => {
  let m: Message;
  try {
    m = parseFor('worker', raw);
  } catch (err) {
    fatal(`rejected message: ${errorMessage(err)}`);
    return;
  }
  switch (m.type) {
    case 'init':
      if (ctx) return fatal('rejected message: init sent twice');
      start(m);
      return;
    case 'call':
      if (!ctx) return fatal('rejected message: call before init');
      calls += 1;
      queue = queue.then(() => handleCall(m as CallMessage)).catch(err => fatal(`call failed: ${errorStack(err)}`));
      return;
    case 'proxy-result':
      return settle(pendingProxies, m);
    case 'fd-result':
      return settle(pendingFds, m);
    case 'done':
      // the sandbox waiting for a command is killed (and gone) before the batch is over
      queue
        .then(() => shell?.close())
        .then(() => {
          send(message({ type: 'done' }));
          process.disconnect?.();
        });
      return;
  }
});

// The main process went away: nothing left to do.
process.on('disconnect', () => {
  void shell?.close();
  process.exit(0);
});
