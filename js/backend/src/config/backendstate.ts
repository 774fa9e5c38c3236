/**
 * The backend's own state — its data folder, pages, skills, code, the policy package it loads, its
 * configuration files, its SQLite file and the key of its secrets at rest — is never reachable from a workspace root. A root equal to,
 * inside, or containing any of them is refused (400 `root_contains_backend_state`) before anything of the
 * request is stored or run: in a chat session, a batch run, a prompt preview and a diagnostic. Paths are
 * compared as given and by their real paths (symlinks resolved; for a path that does not exist yet, the
 * real path of its deepest existing ancestor), so a symlink to one of them counts as the thing itself.
 *
 * A symlink *inside* a root pointing into the state is a different attack, stopped by the host symlink
 * check (`runtime/realpath.ts`), the operations' check on the opened object and the sandbox (which binds
 * only the roots): `test/backendstate.test.js` shows both.
 */
import * as path from 'path';
import { AppError } from '../wire/errors';
import { isInside, realOrAncestor } from '../lib/paths';
import { secretKeyFile } from './secrets';
import { BACKEND_ROOT, CATALOG_FILE, DATA_DIR, DB, SEED_FILE, SKILLS_DIR, STATIC_DIR } from './settings';

export const ROOT_CONTAINS_BACKEND_STATE = 'root_contains_backend_state';

export interface StatePath {
  /** What it is, for the refusal's message (never the path itself). */
  what: string;
  path: string;
}

function packageDir(name: string): string | null {
  try {
    return path.dirname(require.resolve(`${name}/package.json`, { paths: [BACKEND_ROOT] }));
  } catch {
    return null;
  }
}

/** Every path of the backend's own state, in this process's configuration. */
export function backendStatePaths(): StatePath[] {
  const out: StatePath[] = [
    { what: 'data folder (DATA_DIR)', path: DATA_DIR },
    { what: 'pages folder (STATIC_DIR)', path: STATIC_DIR },
    { what: 'skills folder (NETACLAW_SKILLS_DIR)', path: SKILLS_DIR },
    { what: 'code (its folder, with dist/ and node_modules/)', path: BACKEND_ROOT },
  ];
  const pkg = packageDir('@netaclaw/tool-policy');
  if (pkg !== null) out.push({ what: 'policy package (pkg/)', path: pkg });
  if (CATALOG_FILE !== undefined) out.push({ what: 'catalog file (NETACLAW_CATALOG_FILE)', path: CATALOG_FILE });
  if (SEED_FILE !== undefined) out.push({ what: 'seed file (NETACLAW_SEED_FILE)', path: SEED_FILE });
  if (DB.kind === 'sqlite') out.push({ what: 'SQLite database file (DB_PATH)', path: DB.path });
  // the key of the secrets at rest lives outside the data folder (secrets.ts): no root reaches it either
  out.push({ what: 'secret key file (NETACLAW_SECRET_KEY_FILE)', path: secretKeyFile() });
  return out;
}

/** The real path of `p` (or of its deepest existing ancestor, joined with the rest); null when unresolvable. */
async function realOrNull(p: string): Promise<string | null> {
  try {
    return await realOrAncestor(p);
  } catch {
    return null;
  }
}

/** The forms a path is compared in: as given (absolute) and real. Unresolvable: only as given. */
async function forms(p: string): Promise<string[]> {
  const given = path.resolve(p);
  const real = await realOrNull(p);
  return real === null || real === given ? [given] : [given, real];
}

export interface BackendStateClash {
  root: string;
  what: string;
  relation: 'is' | 'is inside' | 'contains' | 'unresolvable';
}

/** The first root that reaches the backend's state, or null. `state`: the paths to protect (tests). */
export async function backendStateClash(roots: readonly string[], state: readonly StatePath[] = backendStatePaths()): Promise<BackendStateClash | null> {
  const stateForms = await Promise.all(state.map(async s => ({ what: s.what, forms: await forms(s.path) })));
  for (const root of roots) {
    // A root that cannot be resolved (a loop, a dangling symlink, no permission) is refused too: fail closed.
    if ((await realOrNull(root)) === null) return { root, what: '', relation: 'unresolvable' };
    for (const r of await forms(root)) {
      for (const s of stateForms) {
        for (const f of s.forms) {
          if (r === f) return { root, what: s.what, relation: 'is' };
          if (isInside(r, f)) return { root, what: s.what, relation: 'is inside' };
          if (isInside(f, r)) return { root, what: s.what, relation: 'contains' };
        }
      }
    }
  }
  return null;
}

/** Throws 400 `root_contains_backend_state` when a root reaches the backend's own state. */
export async function assertRootsClear(roots: readonly string[] | null | undefined): Promise<void> {
  if (!roots || roots.length === 0) return;
  const clash = await backendStateClash(roots);
  if (clash !== null) throw refusal(clash, clash.root);
}

/**
 * The same check for a root held open (runtime/pinned.ts): `real` is where the held folder really is (read
 * from its descriptor, not looked up again by name); the refusal names the root as given.
 */
export async function assertHeldRootClear(given: string, real: string): Promise<void> {
  const clash = await backendStateClash([real]);
  if (clash !== null) throw refusal(clash, given);
}

function refusal(clash: BackendStateClash, given: string): AppError {
  const root = JSON.stringify(given);
  const why = "a workspace root may not reach the backend's data, pages, code or configuration";
  return new AppError(
    400,
    ROOT_CONTAINS_BACKEND_STATE,
    clash.relation === 'unresolvable'
      ? `workspace root ${root} cannot be resolved, so it cannot be shown to stay clear of the backend's own state: ${why}`
      : `workspace root ${root} ${clash.relation} the backend's own ${clash.what}: ${why}`
  );
}
