/**
 * The disk bound of a sandbox with writable roots (docs/runtime.md "Limits"): what it is, exactly.
 *
 * - Each file a sandbox writes is bounded by RLIMIT_FSIZE (SHELL_FILE_MAX_KB), set for its first process.
 * - The bytes it adds to the filesystems of its roots while it lives are bounded by
 *   SANDBOX_DISK_WRITE_MAX_BYTES (`NETACLAW_SANDBOX_DISK_MB`): every DISK_WATCH_INTERVAL_MS the free
 *   space of each such filesystem (`statfs`) is compared with its free space when the sandbox started.
 *   When it has fallen by more than the bound, the roots on that filesystem are walked and the blocks of
 *   the files changed since the sandbox started are added up; past the bound (or when the walk meets more
 *   than DISK_WALK_MAX entries and cannot tell), the sandbox is stopped. Space other programs took in the
 *   meantime is not the sandbox's: the comparison starts again from there.
 * - Granularity and lag: a sandbox can write what it writes in one period past the bound (at 1 GB/s,
 *   about half a GB) before it is stopped; files deleted before a measurement are not counted; space taken
 *   outside the roots (their tmpfs) is memory, bounded by the memory cgroup.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DISK_WATCH_INTERVAL_MS, SANDBOX_DISK_WRITE_MAX_BYTES } from './limits';

/** Entries one measurement walks at most. */
export const DISK_WALK_MAX = 200_000;

/** The bound in bytes: `NETACLAW_SANDBOX_DISK_MB` when set, else SANDBOX_DISK_WRITE_MAX_BYTES. */
export function diskBound(): number {
  const v = (process.env.NETACLAW_SANDBOX_DISK_MB ?? '').trim();
  if (v === '') return SANDBOX_DISK_WRITE_MAX_BYTES;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`NETACLAW_SANDBOX_DISK_MB must be a whole number of MiB, at least 1, got ${JSON.stringify(v)}`);
  return n * 1024 * 1024;
}

function freeBytes(p: string): number | null {
  try {
    const s = fs.statfsSync(p);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** Blocks of the files below `roots` changed at or after `since` (ms), and whether the walk was complete. */
async function writtenSince(roots: string[], since: number): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0;
  let seen = 0;
  const stack = [...roots];
  const visited = new Set<string>();
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > DISK_WALK_MAX) return { bytes, complete: false };
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!visited.has(p)) {
          visited.add(p);
          stack.push(p);
        }
      } else if (e.isFile()) {
        try {
          const st = await fs.promises.lstat(p);
          if (Math.max(st.mtimeMs, st.ctimeMs) >= since) bytes += st.blocks * 512;
        } catch {
          /* gone */
        }
      }
    }
  }
  return { bytes, complete: true };
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/**
 * Watches the writable `roots` of one sandbox; calls `onExceeded(why)` once when it has written past the
 * bound. Returns the function that stops the watch.
 */
export function watchDisk(roots: string[], onExceeded: (why: string) => void, bound = diskBound(), intervalMs = DISK_WATCH_INTERVAL_MS): () => void {
  // the filesystems of the roots, each with its roots and its free space at the start
  const since = Date.now() - 1000;
  const filesystems = new Map<number, { roots: string[]; base: number }>();
  for (const r of roots) {
    let dev: number;
    try {
      dev = fs.statSync(r).dev;
    } catch {
      continue;
    }
    const free = freeBytes(r);
    if (free === null) continue;
    const f = filesystems.get(dev);
    if (f) f.roots.push(r);
    else filesystems.set(dev, { roots: [r], base: free });
  }
  let stopped = filesystems.size === 0;
  let busy = false;
  const tick = async () => {
    if (stopped || busy) return;
    busy = true;
    try {
      for (const f of filesystems.values()) {
        const free = freeBytes(f.roots[0]);
        if (free === null || f.base - free <= bound) continue;
        const w = await writtenSince(f.roots, since);
        if (stopped) return;
        if (w.bytes > bound || !w.complete) {
          stopped = true;
          clearInterval(timer);
          onExceeded(
            w.complete
              ? `the sandbox wrote ${mib(w.bytes)} into its roots, more than its bound of ${mib(bound)}`
              : `the filesystem of its roots lost ${mib(f.base - free)} while it ran, more than its bound of ${mib(bound)}, and its roots hold too many entries (over ${DISK_WALK_MAX}) to tell what it wrote`
          );
          return;
        }
        // the rest was taken by others: start again from here, the sandbox's own bytes still counted
        f.base = free + w.bytes;
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
