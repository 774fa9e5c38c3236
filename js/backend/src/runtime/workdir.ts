/**
 * A session's working directory, checked when the session is made (a chat's first message, a batch of the
 * console): it exists, is a directory, and the user the sandboxes run as (confine.ts: `netaclaw-sandbox`
 * when the backend is root) can read it — and write it when the session may write. Otherwise the session
 * is refused with a 400 naming the folder, the reason and the user to give it to, and nothing is stored:
 * a session fixed to a folder its tools cannot reach would only fail later, call by call.
 *
 * The access check runs as that user (`setpriv … test -r/-w/-x`), so every folder on the way is checked as
 * the sandbox's bwrap will walk it.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AppError } from '../wire/errors';
import type { Sandbox } from './sandboxes';

export type WorkdirProblem = 'missing' | 'not_directory' | 'unreadable' | 'unwritable';

/** The code of each refusal (docs/backend-api.md). */
export const WORKDIR_CODES: Record<WorkdirProblem, string> = {
  missing: 'workdir_missing',
  not_directory: 'workdir_not_directory',
  unreadable: 'workdir_unreadable',
  unwritable: 'workdir_unwritable',
};

/** Who the sandboxes run as, and whether checking as them needs a switch of user (the backend is root). */
function sandboxUser(sandbox: Sandbox): { user: string; uid: number; gid: number; switchUser: boolean } {
  const who = sandbox.sandboxUser();
  if (who) return who;
  const me = os.userInfo();
  return { user: me.username, uid: me.uid, gid: me.gid, switchUser: false };
}

/** Whether the sandbox's user may `mode` (`r`, `w`) the folder and enter it. */
function allowed(dir: string, mode: 'r' | 'w', who: ReturnType<typeof sandboxUser>): boolean {
  if (!who.switchUser) {
    try {
      fs.accessSync(dir, (mode === 'r' ? fs.constants.R_OK : fs.constants.W_OK) | fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  const r = spawnSync('setpriv', [`--reuid=${who.uid}`, `--regid=${who.gid}`, '--clear-groups', '/usr/bin/test', `-${mode}`, dir, '-a', '-x', dir], {
    stdio: 'ignore',
    env: { PATH: '/usr/bin:/bin' },
    timeout: 5000,
  });
  return r.status === 0;
}

/** What is wrong with `dir` as a session's working directory (null: nothing). */
export function workdirProblem(dir: string, write: boolean, sandbox: Sandbox): { problem: WorkdirProblem; user: string } | null {
  const who = sandboxUser(sandbox);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: code === 'EACCES' ? 'unreadable' : 'missing', user: who.user };
  }
  if (!st.isDirectory()) return { problem: 'not_directory', user: who.user };
  if (!allowed(dir, 'r', who)) return { problem: 'unreadable', user: who.user };
  if (write && !allowed(dir, 'w', who)) return { problem: 'unwritable', user: who.user };
  return null;
}

const WHY: Record<WorkdirProblem, string> = {
  missing: 'does not exist',
  not_directory: 'is not a directory',
  unreadable: 'cannot be read by',
  unwritable: 'cannot be written by',
};

/**
 * Refuses (400, `workdir_*`) a session whose working directory its sandboxes could not use. A relative or
 * empty path is the package's to refuse (`invalid_input`), so only an absolute one is looked at.
 */
export function assertWorkdirUsable(session: { sessionCwd?: string | null; writePermitted?: boolean | null }, sandbox: Sandbox): void {
  const dir = session.sessionCwd;
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) return;
  const found = workdirProblem(dir, !!session.writePermitted, sandbox);
  if (!found) return;
  const { problem, user } = found;
  const quoted = JSON.stringify(dir);
  const message =
    problem === 'missing' || problem === 'not_directory'
      ? `sessionCwd: the working directory ${quoted} ${WHY[problem]}: choose an existing directory (readable by user ${JSON.stringify(user)})`
      : `sessionCwd: the working directory ${quoted} ${WHY[problem]} user ${JSON.stringify(user)}, whom the sandboxes run as: give it to user ${JSON.stringify(user)} (chown or chmod)`;
  throw new AppError(400, WORKDIR_CODES[problem], message, [{ field: 'sessionCwd', code: WORKDIR_CODES[problem] }], { path: dir, user });
}
