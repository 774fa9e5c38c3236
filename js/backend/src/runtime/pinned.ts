/**
 * Pinned workspace roots (docs/runtime.md "Workspace roots"). A root is a path, and a path can be made to
 * lead elsewhere at any moment by whoever may write in the folder above it: `mv a a.real && ln -s DATA a`.
 * Resolving the path again at each use — when bwrap binds it for a worker or a shell, when the main
 * process checks and runs a proxied call — let that swap land a write in, or mount, the backend's data
 * folder. So each root is resolved and checked ONCE per batch (or per chat session's turn) and held open:
 *
 * - `pinRoots` opens every root (a folder descriptor, close-on-exec), reads where that descriptor really
 *   is (`/proc/self/fd/N`), and runs the checks on that location and inode: the caller's (the backend's
 *   own state, `backendstate.ts`) and, for a sandbox user, whether that user may read and enter it;
 * - bwrap binds exactly the held inode: `--bind-fd` / `--ro-bind-fd` with the descriptor handed to it in
 *   an extra stdio slot (`childFds`), so no second lookup of the path is made (bwrap itself checks that what
 *   it mounted is the descriptor's inode, and closes its copy before anything of the sandbox runs);
 * - in the main process every path inside a root is reached through `/proc/self/fd/N/…` (the kernel
 *   resolves it from the held folder, like openat(2)), for the symlink check, the operations' check on the
 *   opened object and the operations themselves (`pinnedOperations`);
 * - `swapped()` says, in a sentence, when a root's path now leads to another inode than the held one: the
 *   host refuses a proxied call, and does not start a worker, while that is so.
 *
 * A descriptor number is reused by the kernel once closed: `close()` waits for the operations in flight,
 * and a path mapped after it throws.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { GatePath } from './gate';
import { HostCheckDenial, isInside, realOrAncestor } from './realpath';
import { RUNTIME_REASONS } from './codes';
import type { RulesInput } from '@netaclaw/tool-policy';
import type { NetHooks } from './net/proxy';
import type { DirEntry, ExecRequest, ExecResult, FoundFiles, GrepResult, Operations, Within } from './operations/types';
import { errorMessage } from '../lib/errortext';

export interface PinnedRoot {
  /** The root as the policy names it (absolute). */
  given: string;
  /** The held folder (this process's descriptor). */
  fd: number;
  dev: number;
  ino: number;
  /** Where the held folder was when it was pinned. */
  real: string;
}

/** A root that cannot be pinned (missing, not a folder, refused by a check): the run does not start. */
export class RootPinError extends Error {
  readonly code = 'root_unpinnable';
  constructor(message: string) {
    super(message);
    this.name = 'RootPinError';
  }
}

export interface PinOptions {
  /**
   * Checks run on each held root, given its name and where it really is (the descriptor's location, not
   * a second lookup of the path): throws to refuse the root (the backend's own state).
   */
  check?: (given: string, real: string) => void | Promise<void>;
  /** The user sandboxes run as: each root must be readable and enterable by it. */
  sandboxUser?: { uid: number; gid: number };
}

/** open(2)'s O_PATH on Linux (not in Node's constants): a descriptor that only names an object. */
const O_PATH = 0o10000000;

/**
 * The real path of an existing path, as the kernel resolved it: opened with O_PATH and its descriptor's
 * link read (realpath(3) would read /proc/self/fd/N by name again, which races a rename).
 */
async function kernelResolve(existing: string): Promise<string> {
  const fh = await fs.promises.open(existing, O_PATH);
  try {
    return await fs.promises.readlink(fdLink(fh.fd));
  } catch (err) {
    // the path was opened: a failure to read its link is not a missing path to walk up from
    throw Object.assign(new Error(`cannot read where ${existing} leads: ${errorMessage(err)}`), { code: 'EPINNED' });
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** `realOrAncestor`, resolved by the kernel: the path (or its deepest existing ancestor, joined with the rest). */
function kernelReal(p: string): Promise<string> {
  return realOrAncestor(p, kernelResolve);
}

function fdLink(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** The user may list and enter the folder (by its mode bits; the sandbox user has no supplementary groups). */
function userMayEnter(st: fs.Stats, user: { uid: number; gid: number }): boolean {
  const need = st.uid === user.uid ? 0o500 : st.gid === user.gid ? 0o050 : 0o005;
  return (st.mode & need) === need;
}

/** Opens and checks every root once. Throws RootPinError (every descriptor opened so far closed). */
export async function pinRoots(roots: readonly string[], opts: PinOptions = {}): Promise<PinnedRoots> {
  const pinned: PinnedRoot[] = [];
  try {
    for (const given of [...new Set(roots.map(r => path.resolve(r)))]) {
      let fd: number;
      try {
        fd = fs.openSync(given, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a folder' : `cannot be opened (${code ?? errorMessage(err)})`;
        throw new RootPinError(`the workspace root ${JSON.stringify(given)} ${why}: a run needs each of its roots to be an existing folder`);
      }
      const st = fs.fstatSync(fd);
      let real: string;
      try {
        real = fs.readlinkSync(fdLink(fd));
      } catch (err) {
        fs.closeSync(fd);
        throw new RootPinError(`the workspace root ${JSON.stringify(given)} cannot be held open here (${errorMessage(err)}): /proc is needed to pin it`);
      }
      pinned.push({ given, fd, dev: st.dev, ino: st.ino, real });
      if (!real.startsWith('/')) {
        throw new RootPinError(`the workspace root ${JSON.stringify(given)} is not a folder of this host's filesystem`);
      }
      if (opts.sandboxUser && !userMayEnter(st, opts.sandboxUser)) {
        throw new RootPinError(
          `the workspace root ${JSON.stringify(given)} cannot be read by the sandbox's user (uid ${opts.sandboxUser.uid}): give the folder to that user, or set NETACLAW_SANDBOX_USER to a user that can read it`
        );
      }
      await opts.check?.(given, real);
    }
    const out = new PinnedRoots(pinned);
    // A swap between the open and the checks is refused too: the name must still lead to what was checked.
    const swapped = out.swapped();
    if (swapped) throw new RootPinError(swapped);
    return out;
  } catch (err) {
    for (const p of pinned) {
      try {
        fs.closeSync(p.fd);
      } catch {
        /* closed */
      }
    }
    throw err;
  }
}

export class PinnedRoots {
  private closed = false;
  private active = 0;
  private drained: Array<() => void> = [];
  /** Longest name first: the innermost root maps a path inside nested roots. */
  private readonly byLength: PinnedRoot[];

  constructor(readonly roots: readonly PinnedRoot[]) {
    this.byLength = [...roots].sort((a, b) => b.given.length - a.given.length);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Null while every root's path leads to its held inode; else the sentence that refuses the call. */
  swapped(): string | null {
    if (this.closed) return 'the workspace roots of this run are no longer held (the run has ended)';
    for (const r of this.roots) {
      let st: fs.Stats | null;
      try {
        st = fs.statSync(r.given);
      } catch {
        st = null;
      }
      if (!st || st.dev !== r.dev || st.ino !== r.ino) {
        return `the workspace root ${JSON.stringify(r.given)} now leads to another folder than the one checked when this run started (it was moved, removed or replaced by a symlink): the call is refused`;
      }
    }
    return null;
  }

  /** The root that holds `p` by name (innermost first), or null. */
  private rootOf(p: string): { root: PinnedRoot; rel: string } | null {
    const abs = path.resolve(p);
    for (const r of this.byLength) if (isInside(abs, r.given)) return { root: r, rel: path.relative(r.given, abs) };
    for (const r of this.byLength) if (isInside(abs, r.real)) return { root: r, rel: path.relative(r.real, abs) };
    return null;
  }

  /**
   * `p` reached through its held root (`/proc/self/fd/N/rel`; the root itself as `/proc/self/fd/N/.`, so
   * that its last part is not the descriptor's link, which `O_NOFOLLOW` would refuse); a path outside
   * every root as it is.
   */
  map(p: string): string {
    if (this.closed) throw new Error('the workspace roots of this run are no longer held (the run has ended)');
    const found = this.rootOf(p);
    if (!found) return p;
    return found.rel === '' ? `${fdLink(found.root.fd)}/.` : path.join(fdLink(found.root.fd), found.rel);
  }

  /** Folders a path must lie in: each root replaced by its held folder (a skill's folder as it is). */
  mapWithin(w: Within): Within {
    return w === null ? null : w.map(p => this.map(p));
  }

  /** Text naming held folders (`/proc/self/fd/N…`) names the roots as given instead. */
  unmap(text: string): string {
    return text.replace(/\/proc\/self\/fd\/(\d+)(\/\.(?![^/\s'"]))?/g, (all, n: string) => this.roots.find(r => r.fd === Number(n))?.given ?? all);
  }

  /** The host symlink check (realpath.ts), resolved against the held roots; the denial names paths as given. */
  async checkRealPaths(paths: readonly GatePath[]): Promise<HostCheckDenial | null> {
    return this.using(async () => {
      // A held root renamed between reading where it is and resolving a path below it makes the two
      // disagree (they move together): a denial stands when it is the answer of every try (a path that
      // really leads outside is denied each time; a check that passes is a check made, as any other).
      let denial: HostCheckDenial | null = null;
      for (let tries = 0; tries < 3; tries++) {
        denial = await this.checkOnce(paths);
        if (!denial) break;
        await new Promise(resolve => setImmediate(resolve));
      }
      return denial;
    });
  }

  /**
   * realpath.ts's check, every resolution made by the kernel: each path (or its deepest existing
   * ancestor) opened through its held root and its descriptor's link read, the roots' locations read from
   * their descriptors. (realpath(3) of `/proc/self/fd/N/…` would look the link's text up again by name.)
   */
  private async checkOnce(paths: readonly GatePath[]): Promise<HostCheckDenial | null> {
    for (const p of paths) {
      let resolved: string;
      try {
        resolved = await kernelReal(this.map(p.path));
      } catch (err) {
        return {
          reason: RUNTIME_REASONS.outsideWorkspace,
          detail: `${p.argument}: ${p.path} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`,
        };
      }
      const roots = this.roots.map(r => fs.readlinkSync(fdLink(r.fd)));
      if (!roots.some(r => isInside(resolved, r))) {
        return { reason: RUNTIME_REASONS.outsideWorkspace, detail: `${p.argument}: ${p.path} leads outside every workspace root (through a symlink)` };
      }
    }
    return null;
  }

  /**
   * For a child process that binds the roots: `binds` maps each root (the bind's destination) to the
   * descriptor number it has in the child, `stdio` lists this process's descriptors to put in the child's
   * slots `first`, `first + 1`… (after the slots the caller uses).
   */
  childFds(first: number): { binds: Map<string, number>; stdio: number[] } {
    if (this.closed) throw new Error('the workspace roots of this run are no longer held (the run has ended)');
    const binds = new Map<string, number>();
    const stdio: number[] = [];
    for (const r of this.roots) {
      binds.set(r.given, first + stdio.length);
      stdio.push(r.fd);
    }
    return { binds, stdio };
  }

  /** Runs `fn` with the descriptors kept open until it ends. */
  async using<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the workspace roots of this run are no longer held (the run has ended)');
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const d of this.drained.splice(0)) d();
    }
  }

  /** Closes the descriptors once no operation uses them (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.active > 0) await new Promise<void>(resolve => this.drained.push(resolve));
    for (const r of this.roots) {
      try {
        fs.closeSync(r.fd);
      } catch {
        /* closed */
      }
    }
  }
}

/** An error whose message names held folders, made to name the roots instead (same class and code). */
function unmapError(pins: PinnedRoots, err: unknown): unknown {
  if (err instanceof Error) {
    err.message = pins.unmap(err.message);
    const e = err as NodeJS.ErrnoException;
    if (typeof e.path === 'string') e.path = pins.unmap(e.path);
  }
  return err;
}

/**
 * The main process's operations for one run: every path and every `within` inside a root is reached
 * through the held root; paths in answers and errors name the roots as given. A shell gets the held roots
 * to bind (`ExecRequest.rootFds`) and the run's `rules`, whose path rules its sandbox enforces (pathrules.ts)
 * and whose net() hosts it reaches through its proxy, whose asks and records go to `network` (runtime/net).
 */
export function pinnedOperations(ops: Operations, pins: PinnedRoots, rules?: RulesInput | null, network?: NetHooks): Operations {
  const run = <T>(fn: () => Promise<T>): Promise<T> =>
    pins.using(async () => {
      try {
        return await fn();
      } catch (err) {
        throw unmapError(pins, err);
      }
    });
  const m = (p: string) => pins.map(p);
  const w = (x: Within) => pins.mapWithin(x);
  return {
    fs: {
      readFile: (p, x) => run(() => ops.fs.readFile(m(p), w(x))),
      stat: (p, x) => run(() => ops.fs.stat(m(p), w(x))),
      readDir: (p, x): Promise<DirEntry[]> => run(() => ops.fs.readDir(m(p), w(x))),
      writeFile: (p, content, x) => run(() => ops.fs.writeFile(m(p), content, w(x))),
      writeFiles: (files, x) =>
        run(() =>
          ops.fs.writeFiles(
            files.map(f => ({ ...f, path: m(f.path) })),
            w(x)
          )
        ),
      removeTree: (p, x) => run(() => ops.fs.removeTree(m(p), w(x))),
    },
    search: {
      findFiles: (dir, pattern, max, x): Promise<FoundFiles> =>
        run(async () => {
          const r = await ops.search.findFiles(m(dir), pattern, max, w(x));
          return { ...r, paths: r.paths.map(p => pins.unmap(p)) };
        }),
      grep: (p, regex, glob, max, x): Promise<GrepResult> =>
        run(async () => {
          const r = await ops.search.grep(m(p), regex, glob, max, w(x));
          return { ...r, matches: r.matches.map(hit => ({ ...hit, path: pins.unmap(hit.path) })) };
        }),
    },
    process: {
      exec: (req: ExecRequest): Promise<ExecResult> =>
        run(() => {
          const rootFds = new Map<string, number>();
          for (const root of req.roots) {
            const held = pins.roots.find(r => r.given === path.resolve(root));
            if (!held) throw new Error(`the workspace root ${JSON.stringify(root)} is not held by this run: it cannot be bound`);
            rootFds.set(root, held.fd);
          }
          return ops.process.exec({ ...req, rootFds, ...(rules ? { rules } : {}), ...(network ? { network } : {}) });
        }),
    },
  };
}
