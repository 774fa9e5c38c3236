import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { AS_ROOT, child, confinement, openInside, openOrMakeDir, Opened, recheck, Within, FdResolver, PROC_SELF } from './confined';
import type { DirEntry, EntryType, FileSystemOperations } from './types';

const C = fs.constants;

function typeOf(st: fs.Stats | fs.Dirent): EntryType {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  return 'other';
}

async function close(o: Opened | null | undefined): Promise<void> {
  if (o) await o.fh.close().catch(() => undefined);
}

/**
 * The real filesystem (node:fs). Every path is opened first and what was opened is checked to lie inside
 * `within` (operations/confined.ts); reads, listings and writes then go through the opened object.
 */
export class NodeFileSystemOperations implements FileSystemOperations {
  /** `resolveFd`: where an opened descriptor points (a worker asks the main process; confined.ts). */
  constructor(private readonly resolveFd: FdResolver = PROC_SELF) {}

  async readFile(p: string, within: Within): Promise<Buffer> {
    const o = await openInside(p, await confinement(within, this.resolveFd), C.O_RDONLY);
    try {
      const st = await o.fh.stat();
      if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: ${p} is a folder`), { code: 'EISDIR' });
      if (!st.isFile()) throw Object.assign(new Error(`${p} is not a regular file`), { code: 'ENOTREG' });
      return await o.fh.readFile();
    } finally {
      await close(o);
    }
  }

  async stat(p: string, within: Within) {
    const o = await openInside(p, await confinement(within, this.resolveFd), C.O_RDONLY);
    try {
      const st = await o.fh.stat();
      return { type: typeOf(st), size: st.size };
    } finally {
      await close(o);
    }
  }

  async readDir(p: string, within: Within): Promise<DirEntry[]> {
    const c = await confinement(within, this.resolveFd);
    const o = await openInside(p, c, C.O_RDONLY | C.O_DIRECTORY);
    try {
      const entries = await fs.promises.readdir(o.base, { withFileTypes: true });
      const out: DirEntry[] = [];
      for (const e of entries) {
        let size = 0;
        if (e.isFile()) size = (await fs.promises.lstat(child(o, e.name)).catch(() => null))?.size ?? 0;
        out.push({ name: e.name, type: typeOf(e), size });
      }
      await recheck(o, c);
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return out;
    } finally {
      await close(o);
    }
  }

  async writeFile(p: string, content: string, within: Within): Promise<void> {
    await this.writeFiles([{ path: p, content }], within);
  }

  async writeFiles(files: Array<{ path: string; content: string | null }>, within: Within): Promise<void> {
    // Stage every new content in a temp file inside its (checked) parent folder, then rename them all
    // through the same folders; on a failure before the renames nothing has changed. (A failure between
    // two renames is not atomic across files; it cannot come from the content, only from the filesystem.)
    const c = await confinement(within, this.resolveFd);
    const staged: Array<{ dir: Opened; tmp: string | null; name: string }> = [];
    try {
      try {
        for (const f of files) {
          const name = path.basename(f.path);
          const dir = f.content === null ? await openInside(path.dirname(f.path), c, C.O_RDONLY | C.O_DIRECTORY) : await openOrMakeDir(path.dirname(f.path), c);
          if (f.content === null) {
            staged.push({ dir, tmp: null, name });
            continue;
          }
          const tmp = `.${name}.${crypto.randomBytes(6).toString('hex')}.tmp`;
          staged.push({ dir, tmp: null, name });
          const existing = await fs.promises.lstat(child(dir, name)).catch(() => null);
          const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o644;
          const fh = await fs.promises.open(child(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode);
          staged[staged.length - 1].tmp = tmp;
          try {
            // A file the backend (as root) writes belongs to the owner of the file it replaces, or of the
            // folder it is written into: a sandbox user that owns the workspace can go on working on it.
            if (AS_ROOT) {
              const owner = existing?.isFile() ? existing : await dir.fh.stat();
              await fh.chown(owner.uid, owner.gid);
            }
            await fh.writeFile(f.content);
          } finally {
            await fh.close();
          }
        }
      } catch (err) {
        for (const s of staged) if (s.tmp) await fs.promises.rm(child(s.dir, s.tmp), { force: true });
        throw err;
      }
      for (const s of staged) {
        if (s.tmp) await fs.promises.rename(child(s.dir, s.tmp), child(s.dir, s.name));
        else await fs.promises.rm(child(s.dir, s.name), { force: true });
      }
    } finally {
      for (const s of staged) await close(s.dir);
    }
  }

  async removeTree(p: string, within: Within): Promise<void> {
    const parent = await openInside(path.dirname(p), await confinement(within, this.resolveFd), C.O_RDONLY | C.O_DIRECTORY);
    try {
      await fs.promises.rm(child(parent, path.basename(p)), { recursive: true, force: true });
    } finally {
      await close(parent);
    }
  }
}
