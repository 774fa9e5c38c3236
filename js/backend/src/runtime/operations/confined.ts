/**
 * Opening a path and then proving that what was opened lies inside the workspace roots (docs/runtime.md
 * "Symlink races"). The host symlink check resolves a path before a tool runs; a process writing in the
 * same root could swap a folder for a symlink between that check and the tool's use of the path. So the
 * real operations open first, check the opened object, and then read, list and write only through it:
 *
 * - the last component is opened with O_NOFOLLOW (a symlink there is opened at its real path, then checked);
 * - the opened object's real path is read back from `/proc/self/fd/N` and must be inside a real root;
 * - children (entries of a folder, a temp file, a rename, an unlink) are reached through
 *   `/proc/self/fd/N/name`, which the kernel resolves from the checked folder itself, like openat(2).
 *
 * A worker may not read `/proc/self/fd` (its permission model is not granted it: `/proc/self/fd/N/..` would
 * climb out of a root, which Node's lexical check cannot see). It asks the main process instead, which
 * reads `/proc/<worker>/fd/N` (its operations are given that `FdResolver`): contents are read only through a descriptor checked that
 * way. A worker lists folders by path, then checks that the path still leads to the checked folder: a folder
 * swapped for a symlink and back within the microseconds between the two could show the *names* (never the
 * contents) of a folder outside; the race test measures it. Where no `/proc` exists at all, the check falls
 * back to comparing the descriptor with the path's real location (narrower, not closed).
 */
import * as fs from 'fs';
import * as path from 'path';
import { isInside, realRoots } from '../realpath';
import { errorMessage } from '../../lib/errortext';

const C = fs.constants;
/** Never blocks on a FIFO; the last component is never followed. */
const BASE_FLAGS = C.O_NOFOLLOW | C.O_NONBLOCK;

/** The opened object is outside every root (or changed while it was being opened): the call is denied. */
export class OutsideRootsError extends Error {
  readonly code = 'EOUTSIDE';
  constructor(message: string) {
    super(message);
    this.name = 'OutsideRootsError';
  }
}

/** The folders a path must really be inside, resolved once per operation; null: no check (a test switch). */
export type Within = readonly string[] | null;

export interface Confinement {
  /** The roots' real paths; null: no check. */
  roots: string[] | null;
  /** The roots as given. */
  given: readonly string[];
  /** Where an open descriptor of this process points (`PROC_SELF`, or a worker's question to the main process). */
  resolveFd: FdResolver;
}

export async function confinement(within: Within, resolveFd: FdResolver = PROC_SELF): Promise<Confinement> {
  return { roots: within === null ? null : await rootLocations(within), given: within ?? [], resolveFd };
}

/** A held root's descriptor link (`/proc/self/fd/N`, or `…/N/.`; runtime/pinned.ts). */
const HELD = /^\/proc\/self\/fd\/(\d+)(\/\.)?$/;

/**
 * The roots' real paths: a held root's is where its descriptor is now (the kernel's answer, read at once;
 * realpath(3) would look the link's text up again by name, racing a rename), any other's its realpath.
 */
async function rootLocations(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) {
    const held = HELD.exec(r);
    out.push(held ? await fs.promises.readlink(`/proc/self/fd/${held[1]}`) : (await realRoots([r]))[0]);
  }
  return out;
}

/** A root itself, or a folder above one: created by path when missing (roots are the operator's). */
function atOrAboveRoot(p: string, c: Confinement): boolean {
  return c.given.some(r => isInside(path.resolve(r), p));
}

export interface Opened {
  fh: fs.promises.FileHandle;
  /**
   * How to reach the object's children: `/proc/self/fd/N` (the checked folder itself), or the path when
   * `/proc/self/fd` cannot be read.
   */
  base: string;
  /** True when `base` is the path (the fallback check). */
  byPath: boolean;
  /** The path it was opened by. */
  path: string;
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

async function openRaw(p: string, flags: number, followLast: boolean): Promise<fs.promises.FileHandle> {
  try {
    // (the link itself is the last part, which O_NOFOLLOW refuses; `…/N/.` reaches the held folder)
    const held = HELD.exec(p);
    return await fs.promises.open(held ? `/proc/self/fd/${held[1]}/.` : p, flags | BASE_FLAGS);
  } catch (err) {
    // ELOOP: the last component is a symlink. Open its real location (checked below like anything else).
    if (errCode(err) !== 'ELOOP' || !followLast) throw err;
    try {
      return await fs.promises.open(await fs.promises.realpath(p), flags | BASE_FLAGS);
    } catch (e) {
      // Node's message names the real location; the answer names only the path the call gave.
      throw Object.assign(new Error(`${errCode(e) ?? 'error'}: cannot open ${p} (a symlink)`), { code: errCode(e) });
    }
  }
}

/** The real location is never put in the message: it may be any file of the host. */
function outside(p: string): OutsideRootsError {
  return new OutsideRootsError(`${p} led outside every workspace root when it was opened`);
}

/**
 * Where an open descriptor of this process really points, or null where that cannot be read. A worker's
 * operations are given another (worker/main.ts): it asks the main process, which reads `/proc/<worker>/fd/N`.
 */
export type FdResolver = (fd: number) => Promise<string | null>;

/** This process's own `/proc/self/fd/N` link. */
export const PROC_SELF: FdResolver = fd => fs.promises.readlink(`/proc/self/fd/${fd}`).catch(() => null);

/** Checks an opened handle against the roots; closes it and throws OutsideRootsError when it is outside. */
async function verify(fh: fs.promises.FileHandle, p: string, c: Confinement): Promise<Opened> {
  const roots = c.roots;
  if (roots === null) return { fh, base: p, byPath: true, path: p };
  try {
    const actual = await c.resolveFd(fh.fd);
    if (actual !== null && actual.startsWith('/')) {
      if (!roots.some(r => isInside(actual, r)) && !(await insideMovedRoot(fh, c))) throw outside(p);
      // This process can reach the checked object itself through /proc; a worker lists by path.
      return c.resolveFd === PROC_SELF ? { fh, base: `/proc/self/fd/${fh.fd}`, byPath: false, path: p } : { fh, base: p, byPath: true, path: p };
    }
    // No /proc on this host: compare with the path's real location (narrower, not closed).
    await sameAsRealPath(fh, p, roots);
    return { fh, base: p, byPath: true, path: p };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/**
 * A held root (`/proc/self/fd/N/.`, runtime/pinned.ts) moves with its contents: renamed between reading
 * where the roots are and where the opened object is, the two disagree. Read both again, the roots before
 * and after the object: inside when the roots stayed put meanwhile and the object lies below them (a few
 * tries; an object really outside is outside at every try).
 */
async function insideMovedRoot(fh: fs.promises.FileHandle, c: Confinement): Promise<boolean> {
  if (!c.given.some(g => HELD.test(g))) return false;
  for (let tries = 0; tries < 3; tries++) {
    const before = await rootLocations(c.given).catch(() => null);
    const actual = await c.resolveFd(fh.fd);
    const after = await rootLocations(c.given).catch(() => null);
    if (!before || !after || actual === null) return false;
    if (before.join('\0') === after.join('\0') && before.some(r => isInside(actual, r))) return true;
    await new Promise(resolve => setImmediate(resolve));
  }
  return false;
}

/** The fallback check: the path's real location is inside a root and is the very object the handle holds. */
async function sameAsRealPath(fh: fs.promises.FileHandle, p: string, roots: string[]): Promise<void> {
  let real: string;
  try {
    real = await fs.promises.realpath(p);
  } catch (err) {
    throw new OutsideRootsError(`${p} cannot be resolved after it was opened (${errCode(err) ?? errorMessage(err)})`);
  }
  if (!roots.some(r => isInside(real, r))) throw outside(p);
  const [held, there] = await Promise.all([fh.stat(), fs.promises.stat(real).catch(() => null)]);
  if (!there || held.dev !== there.dev || held.ino !== there.ino) {
    throw new OutsideRootsError(`${p} changed while it was being opened`);
  }
}

/**
 * Opens `p` (flags: O_RDONLY, O_DIRECTORY…) and checks what was opened. `followLast`: a symlink as the last
 * component is opened at its real location (a tool's argument); false refuses it with ELOOP (a walk).
 */
export async function openInside(p: string, c: Confinement, flags: number, followLast = true): Promise<Opened> {
  const fh = await openRaw(p, flags, followLast);
  return verify(fh, p, c);
}

/**
 * For a folder listed by its path (a worker): the path must still lead to the folder the handle holds.
 * Narrows, does not close, the window (see the module comment).
 */
export async function recheck(o: Opened, c: Confinement): Promise<void> {
  if (!o.byPath || c.roots === null) return;
  const [held, there] = await Promise.all([o.fh.stat(), fs.promises.stat(o.path).catch(() => null)]);
  if (!there || held.dev !== there.dev || held.ino !== there.ino) throw new OutsideRootsError(`${o.path} changed while it was being listed`);
}

/** The backend runs as root: files and folders it creates are given to the workspace's owner. */
export const AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

/** A child of an opened folder, reached through the folder itself. */
export function child(o: Opened, name: string): string {
  return path.join(o.base, name);
}

/** Opens a folder inside the roots, creating it and its missing parents (each through its checked parent). */
export async function openOrMakeDir(p: string, c: Confinement): Promise<Opened> {
  try {
    return await openInside(p, c, C.O_RDONLY | C.O_DIRECTORY);
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
  }
  if (atOrAboveRoot(p, c)) {
    await fs.promises.mkdir(p, { recursive: true });
    return openInside(p, c, C.O_RDONLY | C.O_DIRECTORY);
  }
  const parentPath = path.dirname(p);
  if (parentPath === p) throw Object.assign(new Error(`${p}: no such folder`), { code: 'ENOENT' });
  const parent = await openOrMakeDir(parentPath, c);
  try {
    const at = child(parent, path.basename(p));
    const made = await fs.promises.mkdir(at).then(
      () => true,
      err => {
        if (errCode(err) !== 'EEXIST') throw err;
        return false;
      }
    );
    const fh = await openRaw(at, C.O_RDONLY | C.O_DIRECTORY, false);
    const opened = await verify(fh, p, c);
    if (made && AS_ROOT) {
      const owner = await parent.fh.stat();
      await opened.fh.chown(owner.uid, owner.gid);
    }
    return opened;
  } finally {
    await parent.fh.close().catch(() => undefined);
  }
}
