import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';
import picomatch from 'picomatch';
import { GREP_FILE_MAX_BYTES, SEARCH_WALK_MAX } from '../limits';
import type { FoundFiles, GrepMatch, GrepResult, SearchOperations } from './types';

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
  abs: string;
  rel: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
}

/** Breadth-first walk, never following symlinks, at most SEARCH_WALK_MAX entries. */
async function* walk(dir: string): AsyncGenerator<WalkEntry, boolean> {
  const queue: string[] = [''];
  let seen = 0;
  while (queue.length) {
    const relDir = queue.shift()!;
    let handle: fs.Dir;
    try {
      handle = await fs.promises.opendir(path.join(dir, relDir));
    } catch {
      continue;
    }
    const names: fs.Dirent[] = [];
    for await (const e of handle) names.push(e);
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of names) {
      seen += 1;
      if (seen > SEARCH_WALK_MAX) return true;
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      const type = e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
      yield { abs: path.join(dir, rel), rel, type };
      if (type === 'dir') queue.push(rel);
    }
  }
  return false;
}

async function grepFile(file: string, label: string, regex: RegExp, out: GrepMatch[], max: number): Promise<void> {
  const stream = fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n += 1;
      if (line.includes('\u0000')) return; // binary file
      regex.lastIndex = 0;
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

/** The real search: a bounded walk of the filesystem, picomatch globs, line-by-line grep. */
export class NodeSearchOperations implements SearchOperations {
  async findFiles(dir: string, pattern: string, max: number): Promise<FoundFiles> {
    const match = globMatcher(pattern);
    const paths: string[] = [];
    const it = walk(dir);
    for (;;) {
      const next = await it.next();
      if (next.done) return { paths, truncated: next.value };
      if (match(next.value.rel)) {
        paths.push(next.value.rel);
        if (paths.length >= max) return { paths, truncated: true };
      }
    }
  }

  async grep(target: string, regex: RegExp, glob: string | null, maxMatches: number): Promise<GrepResult> {
    const matches: GrepMatch[] = [];
    const st = await fs.promises.lstat(target);
    if (st.isFile()) {
      await grepFile(target, path.basename(target), regex, matches, maxMatches);
      return { matches, truncated: matches.length >= maxMatches, filesSearched: 1 };
    }
    if (!st.isDirectory()) throw new Error(`${target} is neither a file nor a folder`);
    const filter = glob ? globMatcher(glob) : null;
    let files = 0;
    const it = walk(target);
    for (;;) {
      const next = await it.next();
      if (next.done) return { matches, truncated: next.value, filesSearched: files };
      const e = next.value;
      if (e.type !== 'file' || (filter && !filter(e.rel))) continue;
      const size = (await fs.promises.lstat(e.abs).catch(() => null))?.size ?? 0;
      if (size > GREP_FILE_MAX_BYTES) continue;
      files += 1;
      await grepFile(e.abs, e.rel, regex, matches, maxMatches);
      if (matches.length >= maxMatches) return { matches, truncated: true, filesSearched: files };
    }
  }
}
