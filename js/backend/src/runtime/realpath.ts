/**
 * The host symlink check (RUNTIME §1): the package normalizes paths lexically and cannot see symlinks, so
 * before a path is touched it is resolved on the real filesystem — `realpath` of the path, or of its
 * deepest existing ancestor for a path still to be created — and a path whose real location leaves every
 * (real) root is denied `path_outside_workspace`. Used by the worker and by the main process alike.
 */
import type { GatePath } from './gate';
import { RUNTIME_REASONS } from './codes';
import { errorMessage } from '../lib/errortext';
import { isInside, realOrAncestor } from '../lib/paths';

export { isInside, realOrAncestor };

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
