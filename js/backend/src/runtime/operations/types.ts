/**
 * Tool operations (seed 000 "tool-operations"): how a tool reaches the filesystem, search and processes.
 * The runtime policy decides WHETHER and WHERE a tool runs; these interfaces decide how its file, search
 * and process calls are carried out. Each has one real implementation; tests may inject others.
 * Every path given to an operation is absolute and has passed the gate and the host symlink check.
 * `within` names the folders the path must really lie in (the workspace roots, or a skill's folder): the
 * real implementations check what they actually opened against it, which closes most of the window
 * between the symlink check and the use (docs/runtime.md "Symlink races"). `null` checks nothing: only
 * the test switch that turns the host symlink check off passes it.
 */
import type { Within } from './confined';
import type { RulesInput } from '@netaclaw/tool-policy';
import type { NetHooks } from '../net/proxy';

export type { Within };

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface DirEntry {
  name: string;
  type: EntryType;
  size: number;
}

export interface FileSystemOperations {
  /** The whole file, as bytes (a folder: EISDIR; anything but a regular file: ENOTREG). */
  readFile(path: string, within: Within): Promise<Buffer>;
  stat(path: string, within: Within): Promise<{ type: EntryType; size: number }>;
  readDir(path: string, within: Within): Promise<DirEntry[]>;
  /** Writes a file, creating missing parent folders. */
  writeFile(path: string, content: string, within: Within): Promise<void>;
  /** Writes several files all or nothing (each is staged first, then renamed into place). */
  writeFiles(files: Array<{ path: string; content: string | null }>, within: Within): Promise<void>;
  removeTree(path: string, within: Within): Promise<void>;
}

export interface FoundFiles {
  paths: string[];
  truncated: boolean;
}

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  truncated: boolean;
  filesSearched: number;
}

/** What a grep matches each line with (runtime/regex.ts compiles a pattern into one). */
export interface LineMatcher {
  /** Whether the pattern matches somewhere in `line`. */
  test(line: string): boolean;
}

export interface SearchOperations {
  /** Files under `dir` whose path relative to `dir` matches the glob; symlinks are listed, never followed. */
  findFiles(dir: string, pattern: string, max: number, within: Within): Promise<FoundFiles>;
  /**
   * Lines matching `regex` (linear time: runtime/regex.ts) in the regular files under `path` (or in the file `path`), read line by line;
   * `glob` filters file paths relative to `path`. Symlinks are never followed.
   */
  grep(path: string, regex: LineMatcher, glob: string | null, maxMatches: number, within: Within): Promise<GrepResult>;
}

export interface ExecRequest {
  command: string;
  /** Working directory (the first root). */
  cwd: string;
  /** Folders bound into the sandbox: the workspace roots. */
  roots: string[];
  readonly: boolean;
  /** Extra folders bound read-only (a skill's folder). */
  readOnlyBinds?: string[];
  timeoutMs: number;
  /**
   * The roots held open for this run (pinned.ts): a root → this process's descriptor of it. A sandbox
   * binds these descriptors (`--bind-fd`), never the paths.
   */
  rootFds?: ReadonlyMap<string, number>;
  /** Text given to the command on its stdin (a custom command tool's arguments as JSON); /dev/null when absent. */
  stdin?: string;
  /**
   * The run's rules (the package's `RulesInput`): their path rules are enforced in the sandbox
   * (pathrules.ts). Absent or null: none, as the package decides without rules.
   */
  rules?: RulesInput | null;
  /** Who answers the rules' `net()` asks and keeps the decisions (net/proxy.ts); absent: asks are refused, decisions logged. */
  network?: NetHooks;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  /** stdout and stderr as they arrived, the first OUTPUT_MAX_BYTES. */
  output: string;
  outputBytes: number;
  timedOut: boolean;
  killedForOutput: boolean;
  /** Why the sandbox was stopped or a process of it killed by a kernel limit (its disk bound, its memory limit). */
  killedFor?: string;
}

export interface ProcessOperations {
  exec(req: ExecRequest): Promise<ExecResult>;
}

export interface Operations {
  fs: FileSystemOperations;
  search: SearchOperations;
  process: ProcessOperations;
}
