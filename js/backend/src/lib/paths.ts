/** Paths compared on the real filesystem: dependency-free, used by the runtime and by the backend's own checks alike. */
import * as fs from 'fs';
import * as path from 'path';

/**
 * Real path of `p`, or of its deepest existing ancestor joined with the rest. A dangling symlink on the way
 * throws (EDANGLING). `resolve` finds the real path of an existing path (`realpath` by default; pinned.ts
 * asks the kernel) and throws ENOENT/ENOTDIR for a missing one.
 */
export async function realOrAncestor(p: string, resolve: (existing: string) => Promise<string> = fs.promises.realpath): Promise<string> {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      const real = await resolve(cur);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      // A dangling symlink would be followed by a write that creates its target: refuse it.
      const st = await fs.promises.lstat(cur).catch(() => null);
      if (st?.isSymbolicLink()) throw Object.assign(new Error(`dangling symlink ${cur}`), { code: 'EDANGLING' });
      const parent = path.dirname(cur);
      if (parent === cur) return path.join(cur, ...rest.reverse());
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

export function isInside(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}
