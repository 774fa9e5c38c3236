/**
 * A sized `/tmp` and `/dev/shm` per sandbox (docs/runtime.md "The OS sandbox"). bwrap 0.8 has no `--size`
 * for its `--tmpfs`: its `/tmp` and the `/dev/shm` of its `--dev` are as large as the kernel's default,
 * half of RAM. A root backend therefore mounts one tmpfs of its own per sandbox (`size=`, `nr_inodes=`,
 * `nosuid,nodev`) in its private confinement folder, with a `tmp` and a `shm` folder belonging to the
 * sandbox's user, and bwrap binds them at `/tmp` and `/dev/shm` instead: the two share that size, and a
 * write past it fails with ENOSPC. It is unmounted when the sandbox ends. Their pages are charged to the
 * sandbox's memory cgroup besides (cgroups.ts). A backend that is not root cannot mount: its sandboxes
 * keep bwrap's own tmpfs, bounded only by the memory cgroup, if any (`/health` `weaker` says so).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { backendTag, startTime } from './cgroups';

export interface SizedTmp {
  /** The bwrap arguments with `--tmpfs /tmp` replaced and `/dev/shm` bound after `--dev /dev`. */
  args: string[];
  release(): void;
}

let sequence = 0;
/** The mount points of this backend's live sandboxes. */
const live = new Set<string>();

// A backend that stops unmounts its sandboxes' tmpfs (bwrap's --die-with-parent ends their processes).
process.once('exit', () => {
  for (const dir of live) spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
  live.clear();
});

/** The mount points this file makes: `<confinement folder>/tmp-<pid>-<start>-<n>`. */
const NAME = /\/tmp-(\d+)-(\d+)-\d+$/;

/** Unmounts the sandbox tmpfs of backends that are no longer running (their pid and start time gone). */
export function removeStaleTmp(): void {
  let mounts: string[][];
  try {
    mounts = fs
      .readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map(l => l.split(' '));
  } catch {
    return;
  }
  for (const [source, where, type] of mounts) {
    const m = source === 'netaclaw-sandbox-tmp' && type === 'tmpfs' ? NAME.exec(where ?? '') : null;
    if (!m || startTime(Number(m[1])) === m[2]) continue;
    spawnSync('umount', ['-l', where], { stdio: 'ignore' });
    fs.rmSync(where, { recursive: true, force: true });
  }
}

/** The tmpfs of one sandbox (as the uid `uid`, group `gid`), or throws (the sandbox is not started). */
export function sizedTmp(confineDir: string, bwrapArguments: string[], bytes: number, uid: number, gid: number): SizedTmp {
  const tmp = bwrapArguments.findIndex((a, i) => a === '--tmpfs' && bwrapArguments[i + 1] === '/tmp');
  const dev = bwrapArguments.findIndex((a, i) => a === '--dev' && bwrapArguments[i + 1] === '/dev');
  if (tmp < 0 || dev < 0) return { args: bwrapArguments, release: () => undefined };
  if (sequence === 0) removeStaleTmp();
  const dir = path.join(confineDir, `tmp-${backendTag()}-${++sequence}`);
  fs.mkdirSync(dir, { mode: 0o711 });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},nr_inodes=65536,mode=0711,nosuid,nodev`, 'netaclaw-sandbox-tmp', dir], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    fs.rmdirSync(dir);
    throw new Error(`cannot mount the sandbox's /tmp: ${(mounted.stderr || mounted.error?.message || `exit ${mounted.status}`).trim().slice(0, 300)}`);
  }
  live.add(dir);
  let done = false;
  const release = () => {
    if (done) return;
    done = true;
    live.delete(dir);
    // lazily (a process of the sandbox may still hold it for a moment), and at once: no process of the
    // backend's is left running for it
    spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
    fs.rm(dir, { recursive: true, force: true }, () => undefined);
  };
  try {
    for (const name of ['tmp', 'shm']) {
      fs.mkdirSync(path.join(dir, name), { mode: 0o700 });
      fs.chownSync(path.join(dir, name), uid, gid);
    }
  } catch (err) {
    release();
    throw err;
  }
  const args = [...bwrapArguments];
  // the later place first, so that the earlier one's index still holds
  const edits: Array<[number, () => void]> = [
    [tmp, () => args.splice(tmp, 2, '--bind', path.join(dir, 'tmp'), '/tmp')],
    [dev, () => args.splice(dev + 2, 0, '--bind', path.join(dir, 'shm'), '/dev/shm')],
  ];
  for (const [, edit] of edits.sort((a, b) => b[0] - a[0])) edit();
  return { args, release };
}
