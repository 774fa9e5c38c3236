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

/** Every path a worker must read besides its roots. */
export function codeReadPaths(): string[] {
  const out = new Set<string>([path.join(DIST, 'runtime'), path.join(DIST, 'policy.js'), path.join(BACKEND_ROOT, 'package.json')]);
  for (const name of ['@netaclaw/tool-policy', 'picomatch', 're2js']) {
    const lexical = path.join(BACKEND_ROOT, 'node_modules', name);
    out.add(lexical);
    out.add(fs.realpathSync(packageDir(name)));
  }
  return [...out];
}

export class PermissionError extends Error {}

/**
 * Node 20 splits `--allow-fs-*` values at commas, so a path holding a comma cannot be granted exactly:
 * such a root is refused rather than granted wrongly (fail closed).
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

/** `extraReads`: further files the worker must load (a test's fixture worker program). */
export function permissionFlags(policy: WorkerPolicyWire, extraReads: string[] = []): string[] {
  const roots = new Set<string>();
  for (const r of policy.workspaceRoots) {
    roots.add(grantable(r));
    roots.add(grantable(realOrSelf(r)));
  }
  const flags = ['--experimental-permission'];
  for (const p of [...codeReadPaths(), ...extraReads]) flags.push(`--allow-fs-read=${grantable(p)}`);
  for (const r of roots) flags.push(`--allow-fs-read=${r}`);
  if (!policy.readonly) for (const r of roots) flags.push(`--allow-fs-write=${r}`);
  if (policy.allowShell) flags.push('--allow-child-process');
  return flags;
}
