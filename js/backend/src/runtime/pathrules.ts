/**
 * Path rules inside the OS sandbox (docs/runtime.md "Path rules in the sandbox"). The package decides a
 * call's paths (`checkToolCall` with `rules`); a command in `bash` opens paths nobody sees, so the sandbox
 * enforces them too, with mounts made when it starts, in every root it binds:
 *
 * - in a WRITABLE root, what a `deny` write rule or a protected path (`rules.global.protectedPaths`, else
 *   the package's `ruleDefaults().protectedPaths`) covers is bound read-only: a file, or a folder as a
 *   whole when the package denies a write to a new name in it (`.git/hooks/**`); a folder the rules name
 *   but whose contents they leave writable is bound onto itself, so that its name is kept;
 * - in every root, what a `deny` read rule covers is hidden: a folder behind an empty read-only tmpfs, a
 *   file behind an empty file nobody may read;
 * - every folder between a writable root and something bound read-only is bound onto itself
 *   (read-write): a mount point cannot be renamed or removed (EBUSY), so `mv .git g && mkdir -p .git/hooks`
 *   cannot put a new, writable folder at the protected name;
 * - the folders a write rule names literally (`.git/hooks` of `.git/hooks/**`, `.git/config`) that do not
 *   exist yet are made empty (a folder; a file for a pattern's last, literal segment) and bound
 *   read-only, so that a command cannot make them (`git init` in a root without `.git` fails); they are
 *   removed again when the sandbox has ended, if still empty. A file where the pattern needs a folder
 *   (a `.git` file of a git worktree) is bound read-only, so that it cannot be replaced by a folder.
 *
 * Which entries a rule covers is the package's answer (`checkRules`, one path at a time); this module only
 * reads a pattern's literal folder part (the segments before the first `*` or `?`) to know where to
 * look, and walks from there — at most PATH_RULES_WALK_MAX entries in all, symlinks never followed.
 * Everything is opened through the run's held root (pinned.ts), one name at a time with O_NOFOLLOW, and
 * bound by descriptor (`--bind-fd`, `--ro-bind-fd`): bwrap mounts the held object and checks that the
 * destination's last name is it, or stops; a swap between the walk and the mount cannot move a bind.
 *
 * Fail closed: a sandbox whose rules cannot be enforced is not started, with a sentence — past the walk
 * bound, past PATH_RULES_MOUNTS_MAX mounts, or when a symbolic link stands where a rule needs a folder or
 * file it can bind (a link at a protected path, on a pattern's literal part, or inside a folder bound
 * read-only: a command could follow it to a writable file, or replace it).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { RulesInput } from '@netaclaw/tool-policy';
import { policy } from '../wire/policy';
import { PATH_RULES_MOUNTS_MAX, PATH_RULES_WALK_MAX } from './limits';
import { isInside } from './realpath';

export type { RulesInput };

/** A root the sandbox binds: its name (where it is bound) and this process's held descriptor (pinned.ts). */
export interface RuleRoot {
  given: string;
  fd: number;
}

/** bwrap arguments that make one mount, placed by `dest` (outer mounts before inner ones). */
export interface PathMount {
  dest: string;
  args: string[];
}

export interface PathRulesPlan {
  mounts: PathMount[];
  /** This process's descriptors to hand to bwrap in the slots `first`, `first + 1`… (`--bind-fd N`). */
  stdio: number[];
  /** Closes the descriptors and removes the mount points made for missing paths (once the sandbox has ended). */
  release(): void;
}

/** Why a sandbox cannot enforce its path rules: it is not started. */
export class PathRulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathRulesError';
  }
}

/** open(2)'s O_PATH on Linux (not in Node's constants): a descriptor that only names an object. */
const O_PATH = 0o10000000;
const OPEN_NAME = O_PATH | fs.constants.O_NOFOLLOW;

/** A path rule's pattern: its kind and glob (`read(**\/.env*)`, `write(.git/**)`; the package's syntax). */
const PATH_PATTERN = /^(read|write)\(([\s\S]*)\)$/;

/**
 * A name no entry is expected to have: a write to it, in a folder, is how the package is asked whether it
 * denies every new name there (the folder is then bound read-only as a whole).
 */
const NEW_NAME = '.netaclaw-new-entry';

function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** The deny-write globs (protected paths first) and the deny-read globs of the rules, as written. */
export function pathPatterns(rules: RulesInput): { write: string[]; read: string[] } {
  const protectedPaths = rules.global?.protectedPaths ?? policy().ruleDefaults().protectedPaths;
  const write = [...protectedPaths];
  const read: string[] = [];
  for (const level of [rules.global, rules.agent, rules.session]) {
    for (const pattern of level?.deny ?? []) {
      const m = PATH_PATTERN.exec(pattern.trim());
      if (!m) continue;
      (m[1] === 'read' ? read : write).push(m[2]);
    }
  }
  return { write, read };
}

/** A glob's literal folder part (before the first segment with `*` or `?`) and whether more follows. */
function globParts(glob: string): { absolute: boolean; foreign: boolean; literal: string[]; globbed: boolean } {
  const g = glob.trim().replace(/\\/g, '/');
  const segments = g.split('/').filter(s => s !== '');
  const first = segments.findIndex(s => /[*?]/.test(s));
  return {
    absolute: g.startsWith('/'),
    // `X:/…`: another system's absolute path, never inside a root here
    foreign: /^[A-Za-z]:\//.test(g),
    literal: first < 0 ? segments : segments.slice(0, first),
    globbed: first >= 0,
  };
}

interface Start {
  /** Segments below the root. */
  segs: string[];
  /** The pattern goes on past its literal part: the folder is walked. */
  globbed: boolean;
  /** A write rule: a missing literal folder is made and bound read-only. */
  make: boolean;
  /** The pattern as written (for the sentences). */
  pattern: string;
}

type Action = 'ro' | 'self' | 'hide-dir' | 'hide-file' | 'root-ro' | 'root-hide';

interface Target {
  action: Action;
  /** The held object (absent for the root's own actions). */
  fd?: number;
}

export interface PathRulesInput {
  rules: RulesInput;
  roots: readonly RuleRoot[];
  readonly: boolean;
  /** The first descriptor slot the plan's descriptors get in bwrap's process. */
  firstSlot: number;
  /** An empty file the sandbox's user cannot read: bound over a hidden file. */
  unreadable: string;
}

/**
 * What bwrap must do so that the path rules hold in the sandbox. Throws PathRulesError (nothing left open,
 * nothing left made) when they cannot be enforced; an invalid rule is the package's `invalid_input`.
 */
export function pathRulesPlan(input: PathRulesInput): PathRulesPlan {
  const pkg = policy();
  const givens = input.roots.map(r => r.given);
  if (givens.length === 0) return { mounts: [], stdio: [], release: () => undefined };
  const pol = { workspaceRoots: givens, allowShell: true, readonly: false };
  const denied = (p: string, write: boolean): { pattern: string } | null => {
    const r = pkg.checkRules(write ? { rules: input.rules, policy: pol, write: p } : { rules: input.rules, policy: pol, read: p });
    // a rule's deny: a reason and the rule that gave it (a path outside every root has no rule)
    return r.rule !== null && r.reason !== null ? { pattern: r.rule.pattern ?? r.rule.source ?? 'a rule' } : null;
  };
  // an invalid rule stops here, before anything is read or opened (the package names it: `invalid_input`)
  denied(givens[0], true);
  const { write: writeGlobs, read: readGlobs } = pathPatterns(input.rules);
  const opened: number[] = [];
  const made: Array<{ parent: number; name: string; dev: number; ino: number; dir: boolean }> = [];
  const mounts: PathMount[] = [];
  const stdio: number[] = [];
  let walked = 0;
  const open = (file: string, flags: number): number => {
    const fd = fs.openSync(file, flags);
    opened.push(fd);
    return fd;
  };
  const closeAll = () => {
    for (const fd of opened.splice(0)) {
      try {
        fs.closeSync(fd);
      } catch {
        /* closed */
      }
    }
  };
  const removeMade = () => {
    for (const m of made.splice(0).reverse()) {
      try {
        const at = fdPath(m.parent, m.name);
        const st = fs.lstatSync(at);
        if (st.dev !== m.dev || st.ino !== m.ino) continue;
        if (m.dir) fs.rmdirSync(at);
        else if (st.isFile() && st.size === 0) fs.unlinkSync(at);
      } catch {
        /* not empty, or gone: left as it is */
      }
    }
  };
  try {
    for (const root of input.roots) {
      const writable = !input.readonly;
      // this plan's own descriptor of the root (the run's may be closed before the plan is released)
      const rootFd = open(`${fdPath(root.fd)}/.`, O_PATH | fs.constants.O_DIRECTORY);
      const targets = new Map<string, Target>();
      const dirs = new Map<string, number>([['', rootFd]]);
      const others = givens.filter(g => g !== root.given && isInside(g, root.given));
      const abs = (rel: string) => (rel === '' ? root.given : path.join(root.given, rel));
      const refuse = (why: string): never => {
        throw new PathRulesError(`${why}: the sandbox is not started (docs/runtime.md "Path rules in the sandbox")`);
      };
      const linkRefused = (rel: string, pattern: string): never =>
        refuse(
          `${JSON.stringify(abs(rel))} is a symbolic link where the path rule ${pattern} needs a folder or file the sandbox can keep read-only or hidden (a command could follow the link or replace it); replace the link with what it leads to, or change the rule`
        );
      const count = () => {
        walked += 1;
        if (walked > PATH_RULES_WALK_MAX) {
          refuse(
            `the path rules needed more than ${PATH_RULES_WALK_MAX} entries of the workspace roots looked at (the workspace root ${JSON.stringify(root.given)} holds more below a pattern's folder; a pattern such as **/x is matched against every entry of a root): narrow the pattern to a folder`
          );
        }
      };
      const openName = (parentFd: number, name: string): { fd: number; st: fs.Stats } | null => {
        let fd: number;
        try {
          fd = open(fdPath(parentFd, name), OPEN_NAME);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw err;
        }
        return { fd, st: fs.fstatSync(fd) };
      };

      // 1. where each pattern's literal part lies in this root
      const starts: Start[] = [];
      const place = (glob: string, make: boolean, pattern: string) => {
        const g = globParts(glob);
        if (g.foreign) return;
        if (!g.absolute) {
          starts.push({ segs: g.literal, globbed: g.globbed, make, pattern });
          return;
        }
        const literal = `/${g.literal.join('/')}`;
        if (isInside(literal, root.given)) {
          const rel = path.relative(root.given, literal);
          starts.push({ segs: rel === '' ? [] : rel.split('/'), globbed: g.globbed, make: make && rel !== '', pattern });
        } else if (isInside(root.given, literal)) {
          // the root lies below the pattern's literal part: the root itself, and all of it when globbed
          starts.push({ segs: [], globbed: g.globbed, make: false, pattern });
        }
      };
      if (writable) for (const glob of writeGlobs) place(glob, true, `write(${glob})`);
      for (const glob of readGlobs) place(glob, false, `read(${glob})`);

      // 2. each literal part from the root, name by name; missing folders made (write rules)
      const walks = new Map<string, { fd: number; st: fs.Stats; globbed: boolean; pattern: string }>();
      for (const s of starts) {
        let rel = '';
        let fd = rootFd;
        let st = fs.fstatSync(rootFd);
        let reached = true;
        for (let i = 0; i < s.segs.length; i++) {
          const name = s.segs[i];
          const childRel = rel === '' ? name : `${rel}/${name}`;
          if (others.some(o => isInside(o, abs(childRel)))) {
            // another root lies on the way: its own plan covers it
            reached = false;
            break;
          }
          if (targets.get(childRel)?.action === 'ro') {
            // made or kept read-only as a whole already
            reached = false;
            break;
          }
          const last = i === s.segs.length - 1;
          const known = dirs.get(childRel);
          let child = known !== undefined ? { fd: known, st: fs.fstatSync(known) } : openName(fd, name);
          if (child === null) {
            if (!s.make) {
              reached = false;
              break;
            }
            // made empty, bound read-only: a command cannot make it (a file for a literal last segment)
            const asFile = last && !s.globbed;
            const at = fdPath(fd, name);
            const owner = fs.fstatSync(fd);
            try {
              if (asFile) fs.closeSync(fs.openSync(at, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW, 0o644));
              else fs.mkdirSync(at, 0o755);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code === 'EEXIST')
                refuse(`${JSON.stringify(abs(childRel))} was made by another process while the sandbox was being made`);
              throw err;
            }
            child = openName(fd, name);
            if (child === null) refuse(`${JSON.stringify(abs(childRel))} was removed by another process while the sandbox was being made`);
            made.push({ parent: fd, name, dev: child!.st.dev, ino: child!.st.ino, dir: !asFile });
            try {
              fs.lchownSync(at, owner.uid, owner.gid);
            } catch {
              /* the backend's own user: its files are its */
            }
            targets.set(childRel, { action: 'ro', fd: child!.fd });
            reached = false;
            break;
          }
          if (child.st.isSymbolicLink()) linkRefused(childRel, s.pattern);
          if (!last && !child.st.isDirectory()) {
            // a file where the pattern needs a folder (a `.git` file): kept as it is
            if (s.make && !targets.has(childRel)) targets.set(childRel, { action: 'ro', fd: child.fd });
            reached = false;
            break;
          }
          if (child.st.isDirectory()) dirs.set(childRel, child.fd);
          rel = childRel;
          fd = child.fd;
          st = child.st;
        }
        if (!reached) continue;
        const had = walks.get(rel);
        walks.set(rel, { fd, st, globbed: s.globbed || (had?.globbed ?? false), pattern: had?.pattern ?? s.pattern });
      }

      // 3. the walks: each entry decided by the package, symlinks never followed
      const closeOne = (fd: number) => {
        const i = opened.indexOf(fd);
        if (i >= 0) opened.splice(i, 1);
        fs.closeSync(fd);
      };
      const visited = new Set<string>();
      const visit = (rel: string, fd: number, st: fs.Stats, globbed: boolean, inRo: string | null, pattern: string): void => {
        if (visited.has(rel)) return;
        visited.add(rel);
        count();
        const p = abs(rel);
        const link = st.isSymbolicLink();
        const dir = st.isDirectory();
        const hidden = readGlobs.length > 0 ? denied(p, false) : null;
        if (hidden) {
          if (link) linkRefused(rel, hidden.pattern);
          targets.set(rel, { action: rel === '' ? 'root-hide' : dir ? 'hide-dir' : 'hide-file', fd });
          return;
        }
        if (link) {
          if (inRo !== null) linkRefused(rel, inRo);
          return;
        }
        let ro = inRo;
        if (writable && writeGlobs.length > 0 && inRo === null) {
          const all = dir ? denied(`${p}/${NEW_NAME}`, true) : null;
          const itself = denied(p, true);
          if (all) {
            ro = all.pattern;
            targets.set(rel, { action: rel === '' ? 'root-ro' : 'ro', fd });
          } else if (itself) {
            // a file read-only; a folder whose contents stay writable keeps its name
            if (rel !== '') targets.set(rel, { action: dir ? 'self' : 'ro', fd });
          }
        }
        if (!dir || (!globbed && ro === null)) return;
        for (const e of fs.readdirSync(fdPath(fd))) {
          const childRel = rel === '' ? e : `${rel}/${e}`;
          if (others.some(o => isInside(o, abs(childRel)))) continue;
          const child = openName(fd, e);
          if (child === null) continue;
          const before = targets.size;
          visit(childRel, child.fd, child.st, globbed, ro, ro ?? pattern);
          // a folder that holds a mount stays open (it is bound onto itself); anything else is closed at once
          if (targets.size === before) closeOne(child.fd);
          else if (child.st.isDirectory()) dirs.set(childRel, child.fd);
        }
      };
      // outer walks first: an inner one is then already visited
      for (const rel of [...walks.keys()].sort((a, b) => a.length - b.length)) {
        const w = walks.get(rel)!;
        visit(rel, w.fd, w.st, w.globbed, null, w.pattern);
      }

      // 4. the mounts: the folders above each read-only entry of a writable root bound onto themselves
      const roRels = [...targets].filter(([, t]) => t.action === 'ro' || t.action === 'root-ro').map(([r]) => r);
      const underRo = (rel: string) => roRels.some(r => r === '' || rel === r || rel.startsWith(`${r}/`));
      if (writable) {
        for (const [rel, t] of [...targets]) {
          if (t.action !== 'ro' && t.action !== 'self') continue;
          const parts = rel.split('/');
          for (let i = 1; i < parts.length; i++) {
            const up = parts.slice(0, i).join('/');
            if (targets.has(up) || underRo(up)) continue;
            const upFd = dirs.get(up);
            if (upFd === undefined) refuse(`the folder ${JSON.stringify(abs(up))} could not be held`);
            targets.set(up, { action: 'self', fd: upFd });
          }
        }
      }
      for (const [rel, t] of targets) {
        const dest = abs(rel);
        const slot = () => {
          stdio.push(t.fd!);
          return String(input.firstSlot + stdio.length - 1);
        };
        switch (t.action) {
          case 'root-ro':
            mounts.push({ dest, args: ['--remount-ro', dest] });
            break;
          case 'root-hide':
            mounts.push({ dest, args: ['--tmpfs', dest, '--remount-ro', dest] });
            break;
          case 'ro':
            mounts.push({ dest, args: ['--ro-bind-fd', slot(), dest] });
            break;
          case 'self':
            mounts.push({ dest, args: ['--bind-fd', slot(), dest] });
            break;
          case 'hide-dir':
            mounts.push({ dest, args: ['--ro-bind-fd', slot(), dest, '--tmpfs', dest, '--remount-ro', dest] });
            break;
          case 'hide-file':
            mounts.push({ dest, args: ['--ro-bind-fd', slot(), dest, '--ro-bind', input.unreadable, dest] });
            break;
        }
      }
      if (mounts.length > PATH_RULES_MOUNTS_MAX) {
        refuse(
          `the path rules need more than ${PATH_RULES_MOUNTS_MAX} mounts in the sandbox (read-only or hidden entries and the folders above them): narrow the patterns`
        );
      }
    }
  } catch (err) {
    // (the mount points made are removed through their folders' descriptors, before those are closed)
    removeMade();
    closeAll();
    const e = err as NodeJS.ErrnoException;
    if (!(err instanceof PathRulesError) && typeof e.syscall === 'string') {
      // an entry that vanished or changed under the walk (another process at work in the root), or one
      // the backend may not open: never a sandbox without its rules
      throw new PathRulesError(
        `an entry of the workspace roots changed or could not be opened while the path rules were applied (${e.code ?? e.syscall}): the sandbox is not started (docs/runtime.md "Path rules in the sandbox")`
      );
    }
    throw err;
  }
  // descriptors no mount uses are closed now
  const used = new Set(stdio);
  for (const fd of [...opened]) {
    if (used.has(fd) || made.some(m => m.parent === fd)) continue;
    opened.splice(opened.indexOf(fd), 1);
    try {
      fs.closeSync(fd);
    } catch {
      /* closed */
    }
  }
  let released = false;
  return {
    mounts,
    stdio,
    release: () => {
      if (released) return;
      released = true;
      removeMade();
      closeAll();
    },
  };
}

/** An empty file nobody but root may read (mode 0), made once in `dir` (the confinement's folder). */
export function unreadableFile(dir: string): string {
  const file = path.join(dir, 'unreadable');
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, '', { mode: 0 });
    fs.chmodSync(file, 0);
  }
  return file;
}

/**
 * Merges the roots' binds and the path rules' mounts into bwrap's order: a mount before every mount below
 * it (by the length of the destination; a root's bind before the rules' mounts at its own path).
 */
export function orderedMounts(rootBinds: PathMount[], rules: readonly PathMount[]): string[] {
  const all = [...rootBinds.map((m, i) => ({ m, k: 0, i })), ...rules.map((m, i) => ({ m, k: 1, i }))];
  all.sort((a, b) => a.m.dest.length - b.m.dest.length || a.k - b.k || a.i - b.i);
  return all.flatMap(x => x.m.args);
}
