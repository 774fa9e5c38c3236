/**
 * The host symlink check (RUNTIME §1): the package normalizes paths lexically and cannot see symlinks, so
 * before a path is touched it is resolved on the real filesystem — `realpath` of the path, or of its
 * deepest existing ancestor for a path still to be created — and a path whose real location leaves every
 * (real) root is denied `path_outside_workspace`. Used by the worker and by the main process alike.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { GatePath } from './gate';
import { RUNTIME_REASONS } from './codes';
import { errorMessage } from '../errortext';

/**
 * Real path of `p`, or of its deepest existing ancestor joined with the rest. A dangling symlink on the way
 * throws (EDANGLING). `resolve` finds the real path of an existing path (`realpath` by default; pinned.ts
 * asks the kernel) and throws ENOENT/ENOTDIR for a missing one.
 */
export async function realOrAncestor(p: string, resolve: (existing: string) => Promise<string> = fs.promises.realpath): Promise<string> {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      const real = await resolve(cur);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      // A dangling symlink would be followed by a write that creates its target: refuse it.
      const st = await fs.promises.lstat(cur).catch(() => null);
      if (st?.isSymbolicLink()) throw Object.assign(new Error(`dangling symlink ${cur}`), { code: 'EDANGLING' });
      const parent = path.dirname(cur);
      if (parent === cur) return path.join(cur, ...rest.reverse());
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

export function isInside(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

/** The roots, each resolved to its real path (a root that does not exist is kept as given). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) out.push(await realOrAncestor(r));
  return out;
}

export interface HostCheckDenial {
  reason: typeof RUNTIME_REASONS.outsideWorkspace;
  detail: string;
}

/**
 * Null when every path's real location is inside some real root; else the denial. An error while
 * resolving (permission denied, a loop) denies too: fail closed.
 */
export async function checkRealPaths(paths: readonly GatePath[], roots: readonly string[]): Promise<HostCheckDenial | null> {
  if (paths.length === 0) return null;
  const real = await realRoots(roots);
  for (const p of paths) {
    let resolved: string;
    try {
      resolved = await realOrAncestor(p.path);
    } catch (err) {
      return {
        reason: RUNTIME_REASONS.outsideWorkspace,
        detail: `${p.argument}: ${p.path} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`,
      };
    }
    if (!real.some(r => isInside(resolved, r))) {
      return {
        reason: RUNTIME_REASONS.outsideWorkspace,
        // Only the path as the call named it (inside a root, lexically): where it really leads is the
        // host's business, never told (it could name the backend's own files, or any file of the host).
        detail: `${p.argument}: ${p.path} leads outside every workspace root (through a symlink)`,
      };
    }
  }
  return null;
}
