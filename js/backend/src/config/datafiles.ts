/**
 * The data folder is the backend's alone: at every start it is made (or made again) mode 0700, and the
 * files the backend keeps there 0600 — the SQLite file with its `-wal`, `-shm` and `-journal` (SQLite
 * gives those the mode of the database file, which is created 0600 here before SQLite opens it), and the
 * admin token file. A folder or file of an earlier release (0755 / 0644) is corrected at the next start.
 * Skills under the data folder are behind its 0700; the sandboxes that run a skill get a staged copy
 * (runtime/confine.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { DATA_DIR, DB, DbSettings } from './settings';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

function chmodIfExists(p: string, mode: number, done: string[]): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) return; // never follow a link out of the folder
  if ((st.mode & 0o777) !== mode) {
    fs.chmodSync(p, mode);
    done.push(`${path.basename(p)} ${mode.toString(8)}`);
  }
}

/** Makes the data folder private (and the SQLite file's folder, when the backend creates it). Returns what changed. */
export function secureDataFiles(dataDir: string = DATA_DIR, db: DbSettings = DB): string[] {
  const done: string[] = [];
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodIfExists(dataDir, PRIVATE_DIR_MODE, done);
  chmodIfExists(path.join(dataDir, 'admin-token'), PRIVATE_FILE_MODE, done);
  if (db.kind === 'sqlite') {
    const dir = path.dirname(db.path);
    if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // created empty (a valid empty database) with 0600, so that SQLite's own files follow its mode
    fs.closeSync(fs.openSync(db.path, 'a', PRIVATE_FILE_MODE));
    for (const suffix of ['', '-wal', '-shm', '-journal']) chmodIfExists(db.path + suffix, PRIVATE_FILE_MODE, done);
  }
  return done;
}
