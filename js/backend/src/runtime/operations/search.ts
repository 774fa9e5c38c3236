import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import picomatch from 'picomatch';
import { GREP_FILE_MAX_BYTES, SEARCH_WALK_MAX } from '../limits';
import { child, Confinement, confinement, openInside, Opened, recheck, Within, FdResolver, PROC_SELF } from './confined';
import type { FoundFiles, GrepMatch, GrepResult, LineMatcher, SearchOperations } from './types';

const C = fs.constants;

/** Longest line kept in a grep match. */
const LINE_MAX_CHARS = 500;

/**
 * Globs are matched by picomatch against the path relative to the searched folder (`/` separators); a
 * pattern without a `/` also matches a file's base name at any depth (`*.ts` finds `src/a.ts`).
 */
export function globMatcher(pattern: string): (rel: string) => boolean {
  return picomatch(pattern, { matchBase: !pattern.includes('/'), dot: false });
}

interface WalkEntry {
  /** The folder that holds it (open while the entry is handled). */
  dir: Opened;
  name: string;
  rel: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
}

/**
 * Breadth-first walk of the opened folder `top`, never following symlinks, at most SEARCH_WALK_MAX entries.
 * Each folder is opened below `top` with O_NOFOLLOW and checked before it is listed (a folder swapped for
 * a symlink meanwhile is skipped); entries are reached through their checked folder.
 */
async function* walk(top: Opened, c: Confinement): AsyncGenerator<WalkEntry, boolean> {
  const queue: string[] = [''];
  let seen = 0;
  while (queue.length) {
    const relDir = queue.shift()!;
    let dir: Opened;
    try {
      dir = relDir === '' ? top : await openInside(child(top, relDir), c, C.O_RDONLY | C.O_DIRECTORY, false);
    } catch {
      continue;
    }
    try {
      let names: fs.Dirent[];
      try {
        names = await fs.promises.readdir(dir.base, { withFileTypes: true });
        await recheck(dir, c);
      } catch {
        continue;
      }
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of names) {
        seen += 1;
        if (seen > SEARCH_WALK_MAX) return true;
        const rel = relDir ? `${relDir}/${e.name}` : e.name;
        const type = e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
        yield { dir, name: e.name, rel, type };
        if (type === 'dir') queue.push(rel);
      }
    } finally {
      if (dir !== top) await dir.fh.close().catch(() => undefined);
    }
  }
  return false;
}

async function grepHandle(o: Opened, label: string, regex: LineMatcher, out: GrepMatch[], max: number): Promise<void> {
  const stream = o.fh.createReadStream({ encoding: 'utf8', autoClose: false, start: 0 });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n += 1;
      if (line.includes('\u0000')) return; // binary file
      if (regex.test(line)) {
        out.push({ path: label, line: n, text: line.length > LINE_MAX_CHARS ? line.slice(0, LINE_MAX_CHARS) + '…' : line });
        if (out.length >= max) return;
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** The real search: a bounded walk of checked folders, picomatch globs, line-by-line grep of checked files. */
export class NodeSearchOperations implements SearchOperations {
  /** `resolveFd`: where an opened descriptor points (a worker asks the main process; confined.ts). */
  constructor(private readonly resolveFd: FdResolver = PROC_SELF) {}

  async findFiles(dir: string, pattern: string, max: number, within: Within): Promise<FoundFiles> {
    const match = globMatcher(pattern);
    const c = await confinement(within, this.resolveFd);
    const top = await openInside(dir, c, C.O_RDONLY | C.O_DIRECTORY);
    const paths: string[] = [];
    try {
      const it = walk(top, c);
      for (;;) {
        const next = await it.next();
        if (next.done) return { paths, truncated: next.value };
        if (match(next.value.rel)) {
          paths.push(next.value.rel);
          if (paths.length >= max) {
            await it.return(true);
            return { paths, truncated: true };
          }
        }
      }
    } finally {
      await top.fh.close().catch(() => undefined);
    }
  }

  async grep(target: string, regex: LineMatcher, glob: string | null, maxMatches: number, within: Within): Promise<GrepResult> {
    const matches: GrepMatch[] = [];
    const c = await confinement(within, this.resolveFd);
    const top = await openInside(target, c, C.O_RDONLY);
    try {
      const st = await top.fh.stat();
      if (st.isFile()) {
        await grepHandle(top, path.basename(target), regex, matches, maxMatches);
        return { matches, truncated: matches.length >= maxMatches, filesSearched: 1 };
      }
      if (!st.isDirectory()) throw new Error(`${target} is neither a file nor a folder`);
      const filter = glob ? globMatcher(glob) : null;
      let files = 0;
      const it = walk(top, c);
      for (;;) {
        const next = await it.next();
        if (next.done) return { matches, truncated: next.value, filesSearched: files };
        const e = next.value;
        if (e.type !== 'file' || (filter && !filter(e.rel))) continue;
        let f: Opened;
        try {
          // O_NOFOLLOW: a file swapped for a symlink meanwhile is skipped, never followed.
          f = await openInside(child(e.dir, e.name), c, C.O_RDONLY, false);
        } catch {
          continue;
        }
        try {
          const fst = await f.fh.stat();
          if (!fst.isFile() || fst.size > GREP_FILE_MAX_BYTES) continue;
          files += 1;
          await grepHandle(f, e.rel, regex, matches, maxMatches);
        } finally {
          await f.fh.close().catch(() => undefined);
        }
        if (matches.length >= maxMatches) {
          await it.return(true);
          return { matches, truncated: true, filesSearched: files };
        }
      }
    } finally {
      await top.fh.close().catch(() => undefined);
    }
  }
}
