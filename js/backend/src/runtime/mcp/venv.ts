/**
 * Python MCP servers installed with pip into a virtual environment (the demo's `mcp-server-time`, in
 * `.tools/mcp-python`): the command is a script of the venv's `bin/` whose interpreter and packages are
 * in the venv itself, so a stdio server's sandbox binds the whole venv read-only — and the Python it was
 * made from when that is outside the system folders every sandbox has (a pyenv Python, say).
 */
import * as fs from 'fs';
import * as path from 'path';

/** Folders every sandbox binds already (runtime/sandbox.ts). */
const SYSTEM = ['/usr/', '/bin/', '/lib/', '/lib64/', '/sbin/'];

/**
 * The folders a command of a Python venv needs: the venv (the folder with `pyvenv.cfg` above the
 * command's `bin/`) and, when its `home` is outside the system folders, that Python's installation
 * (the folder above its `bin/`). None for a command that is not in a venv.
 */
export function pythonEnvPaths(command: string): string[] {
  const venv = path.dirname(path.dirname(command));
  let cfg: string;
  try {
    cfg = fs.readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8');
  } catch {
    return [];
  }
  const out = [venv];
  const home = /^home\s*=\s*(.+)$/m.exec(cfg)?.[1]?.trim();
  if (home && path.isAbsolute(home) && !SYSTEM.some(s => `${home}/`.startsWith(s))) {
    try {
      out.push(fs.realpathSync(path.dirname(home)));
    } catch {
      /* a venv whose Python is gone: it fails to start, with its own message */
    }
  }
  return out;
}
