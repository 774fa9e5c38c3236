/**
 * L2: the Node permission-model flags of a worker, derived from its WorkerPolicy (RUNTIME §1). Reads: each
 * root (as given and its real path), the worker's own compiled code, and the package files it loads (the
 * `node_modules/@netaclaw/tool-policy` symlink and the `pkg/` folder it points to, picomatch, re2js). Writes: the
 * roots, only when not `readonly`. `--allow-child-process` only with `allowShell`; never `--allow-worker`,
 * `--allow-addons` or `--allow-wasi`.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { WorkerPolicyWire } from './protocol';
import { isInside } from './realpath';

/** dist/ (this file is dist/runtime/permissions.js). */
const DIST = path.resolve(__dirname, '..');
const BACKEND_ROOT = path.resolve(DIST, '..');

/** The folder of an installed package: the nearest folder above its entry point that holds its package.json. */
function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name, { paths: [BACKEND_ROOT] }));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).name === name) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of the package ${name}`);
    dir = up;
  }
}

/** Every path a worker must read besides its roots (the modules of dist/ outside runtime/ that it loads too). */
export function codeReadPaths(): string[] {
  const out = new Set<string>([
    path.join(DIST, 'runtime'),
    path.join(DIST, 'wire', 'policy.js'),
    path.join(DIST, 'lib', 'errortext.js'),
    path.join(DIST, 'lib', 'paths.js'),
    path.join(BACKEND_ROOT, 'package.json'),
  ]);
  for (const name of ['@netaclaw/tool-policy', 'picomatch', 're2js']) {
    const lexical = path.join(BACKEND_ROOT, 'node_modules', name);
    out.add(lexical);
    out.add(fs.realpathSync(packageDir(name)));
  }
  return [...out];
}

export class PermissionError extends Error {}

/**
 * The flag that turns the permission model on, by the running Node: `--permission` from Node 23.5 (and
 * 22.13), where the model is stable and `--experimental-permission` is refused as a bad option; before, only
 * `--experimental-permission` (Node 20 refuses `--permission`). The worker runs on the same Node as the
 * backend (`fork` uses `process.execPath`), so the running version decides.
 */
export function permissionFlag(version: string = process.versions.node): string {
  const [major, minor] = version.split('.').map(Number);
  const stable = major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  return stable ? '--permission' : '--experimental-permission';
}

/**
 * A path holding a comma is refused rather than granted (fail closed): Node releases have split
 * `--allow-fs-*` values at commas, and Node 24 warns on every such value that a comma-separated list is no
 * longer valid; a root that one release would grant differently from another is not granted at all.
 */
function grantable(p: string): string {
  if (p.includes(',')) throw new PermissionError(`workspace root ${JSON.stringify(p)} holds a comma, which Node's permission flags cannot express`);
  return p;
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The paths to grant, each once and none inside another (outermost first). Node's permission model cannot
 * take nested or repeated grants: Node 20 denies everything below two nested grants (`/a` and `/a/b`, in
 * either order) and aborts on the same path granted twice; Node 24 denies everything below `/a` when `/a/b`
 * comes first. A path inside another is already granted by it.
 */
export function collapseGrants(paths: Iterable<string>): string[] {
  const sorted = [...new Set([...paths].map(p => path.resolve(p)))].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const out: string[] = [];
  for (const p of sorted) if (!out.some(o => isInside(p, o))) out.push(p);
  return out;
}

/**
 * Node's permission model (20 and 24 alike) cannot grant a folder together with another path whose name
 * begins with the folder's (`/w/proj` and `/w/proj-old`, or `/w/root` and a symlink `/w/root-link` to it):
 * the folder itself becomes unreadable (its contents stay readable), so a worker could not resolve or list
 * its root. Such roots are refused at start with this message rather than failing on the first call.
 */
function refuseNameClashes(grants: readonly string[]): void {
  for (const a of grants) {
    for (const b of grants) {
      if (a !== b && b.startsWith(a) && !isInside(b, a)) {
        throw new PermissionError(
          `${JSON.stringify(a)} and ${JSON.stringify(b)} cannot both be granted: Node's permission model cannot grant a folder ` +
            `and another path whose name begins with the folder's name (the folder itself would be unreadable); rename or drop one`
        );
      }
    }
  }
}

/** `extraReads`: further files the worker must load (a test's fixture worker program). */
export function permissionFlags(policy: WorkerPolicyWire, extraReads: string[] = []): string[] {
  const roots: string[] = [];
  for (const r of policy.workspaceRoots) roots.push(grantable(r), grantable(realOrSelf(r)));
  const flags = [permissionFlag()];
  const reads = collapseGrants([...[...codeReadPaths(), ...extraReads].map(grantable), ...roots]);
  refuseNameClashes(reads);
  for (const p of reads) flags.push(`--allow-fs-read=${p}`);
  if (!policy.readonly) for (const r of collapseGrants(roots)) flags.push(`--allow-fs-write=${r}`);
  if (policy.allowShell) flags.push('--allow-child-process');
  return flags;
}
