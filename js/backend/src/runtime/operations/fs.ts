import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { DirEntry, EntryType, FileSystemOperations } from './types';

function typeOf(st: fs.Stats | fs.Dirent): EntryType {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  return 'other';
}

/** The real filesystem (node:fs). */
export class NodeFileSystemOperations implements FileSystemOperations {
  async readFile(p: string): Promise<Buffer> {
    return fs.promises.readFile(p);
  }

  async stat(p: string) {
    const st = await fs.promises.stat(p);
    return { type: typeOf(st), size: st.size };
  }

  async readDir(p: string): Promise<DirEntry[]> {
    const entries = await fs.promises.readdir(p, { withFileTypes: true });
    const out: DirEntry[] = [];
    for (const e of entries) {
      let size = 0;
      if (e.isFile()) size = (await fs.promises.lstat(path.join(p, e.name)).catch(() => null))?.size ?? 0;
      out.push({ name: e.name, type: typeOf(e), size });
    }
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }

  async writeFile(p: string, content: string): Promise<void> {
    await this.writeFiles([{ path: p, content }]);
  }

  async writeFiles(files: Array<{ path: string; content: string | null }>): Promise<void> {
    // Stage every new content next to its target, then rename them all; on a failure before the renames
    // nothing has changed. (A failure between two renames is not atomic across files; it cannot come from
    // the content, only from the filesystem.)
    const staged: Array<{ tmp: string | null; path: string }> = [];
    try {
      for (const f of files) {
        if (f.content === null) {
          staged.push({ tmp: null, path: f.path });
          continue;
        }
        await fs.promises.mkdir(path.dirname(f.path), { recursive: true });
        const tmp = path.join(path.dirname(f.path), `.${path.basename(f.path)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
        let mode: number | undefined;
        try {
          mode = (await fs.promises.stat(f.path)).mode & 0o7777;
        } catch {
          mode = undefined;
        }
        await fs.promises.writeFile(tmp, f.content, { flag: 'wx', mode: mode ?? 0o644 });
        staged.push({ tmp, path: f.path });
      }
    } catch (err) {
      for (const s of staged) if (s.tmp) await fs.promises.rm(s.tmp, { force: true });
      throw err;
    }
    for (const s of staged) {
      if (s.tmp) await fs.promises.rename(s.tmp, s.path);
      else await fs.promises.rm(s.path, { force: true });
    }
  }

  async removeTree(p: string): Promise<void> {
    await fs.promises.rm(p, { recursive: true, force: true });
  }
}
