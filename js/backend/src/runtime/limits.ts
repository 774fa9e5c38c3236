/**
 * Size and time limits of the runtime, in one place (docs/runtime.md "Limits").
 */

/** Tool output kept (bytes of UTF-8); the rest is cut with a note. Also the cap of stored arguments/output. */
export const OUTPUT_MAX_BYTES = 64 * 1024;
/** A shell child past this much output (stdout + stderr) is killed. */
export const SHELL_HARD_CAP_BYTES = 8 * 1024 * 1024;
/** The longest shell command (bytes of UTF-8): what Linux allows one argument of a program (MAX_ARG_STRLEN less its NUL). */
export const SHELL_COMMAND_MAX_BYTES = 128 * 1024 - 1;
/** `bash` time limit: default and maximum. */
export const SHELL_TIMEOUT_DEFAULT_MS = 30_000;
export const SHELL_TIMEOUT_MAX_MS = 600_000;
/**
 * Processes (and threads) the sandbox user may hold at once inside one sandbox (RLIMIT_NPROC, set by the
 * sandbox's prelude): a fork bomb stops there.
 */
export const SHELL_PROCESSES_MAX = 512;
/**
 * Processes and threads of one sandbox (a worker with its shells, one main-process shell, one stdio MCP
 * server): the cgroup's `pids.max`, and RLIMIT_NPROC set for the sandbox's first process (cgroups.ts).
 */
export const SANDBOX_PROCESSES_MAX = SHELL_PROCESSES_MAX;
/**
 * Memory of one sandbox (a memory cgroup's limit): its processes, tmpfs (`/tmp`, `/dev/shm`) and memfd
 * pages. `NETACLAW_SANDBOX_MEMORY_MB` changes it. A worker's V8 heap (WORKER_HEAP_MAX_MB) is within it.
 */
export const SANDBOX_MEMORY_MAX_BYTES = 1024 * 1024 * 1024;
/**
 * The tmpfs `/tmp` and `/dev/shm` of one sandbox share, when the backend is root and can mount one per
 * sandbox (tmpfs.ts): `NETACLAW_SANDBOX_TMP_MB` changes it. Its pages count against the memory limit too.
 */
export const SANDBOX_TMP_MAX_BYTES = 512 * 1024 * 1024;
/**
 * Bytes a sandbox may add to the filesystems of its writable roots while it lives (diskwatch.ts):
 * `NETACLAW_SANDBOX_DISK_MB` changes it. Each file is bounded by SHELL_FILE_MAX_KB besides.
 */
export const SANDBOX_DISK_WRITE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** How often a sandbox's disk use is measured (the bound's lag: what it writes in one period). */
export const DISK_WATCH_INTERVAL_MS = 500;
/** Address space of one process of a sandboxed shell (RLIMIT_AS, KiB): 4 GiB. */
export const SHELL_ADDRESS_SPACE_KB = 4 * 1024 * 1024;
/** The largest file a sandbox may write (RLIMIT_FSIZE, KiB): 1 GiB. */
export const SHELL_FILE_MAX_KB = 1024 * 1024;
/** CPU seconds of one process of a sandboxed shell (RLIMIT_CPU); the call's time limit comes first. */
export const SHELL_CPU_SECONDS = 660;
/** Bytes a worker may send the main process in one second, unasked (events, repeated requests). */
export const IPC_BYTES_PER_SECOND = 4 * 1024 * 1024;
/** Bytes of events a batch keeps for late subscribers; older events beyond it are dropped first. */
export const BATCH_EVENTS_MAX_BYTES = 8 * 1024 * 1024;
/** The worker's V8 heap (`--max-old-space-size`, MB): a worker that needs more dies, and its batch fails. */
export const WORKER_HEAP_MAX_MB = 256;
/** Batch time limit: default and maximum (the whole worker is killed past it). */
export const BATCH_TIMEOUT_DEFAULT_MS = 120_000;
export const BATCH_TIMEOUT_MAX_MS = 600_000;
/**
 * A main-agent call in its session's worker: past this the worker is killed and the call fails (the longest
 * `bash` with its own limit and a margin). The turn's next call starts a new worker.
 */
export const MAIN_CALL_TIMEOUT_MS = SHELL_TIMEOUT_MAX_MS + 30_000;
/**
 * The most calls of one model answer that run at once (consecutive calls of `parallel` tools): the
 * agent loop starts no more, and a turn's main agent has at most this many workers.
 */
export const CONCURRENT_CALLS_MAX = 4;
/** A session's worker lives at most this long (it ends with its turn, long before). */
export const SESSION_WORKER_MAX_MS = 6 * 60 * 60 * 1000;
/** One IPC message from a worker larger than this (serialized) is a flood: the worker is killed. */
export const IPC_MESSAGE_MAX_BYTES = 1024 * 1024;
/** More than this many messages from a worker within one second is a flood. */
export const IPC_MESSAGES_PER_SECOND = 500;
/** Descriptor checks (`fd` requests) a worker may ask for within one second (one per file it opens). */
export const FD_CHECKS_PER_SECOND = 20_000;
/** A worker writing more than this to its stdout/stderr is a flood. */
export const WORKER_STDIO_MAX_BYTES = 1024 * 1024;
/** Calls in one admin `run` batch. */
export const BATCH_CALLS_MAX = 200;
/** Search caps: entries walked, results listed, lines of grep output. */
export const SEARCH_WALK_MAX = 50_000;
export const SEARCH_RESULTS_MAX = 1_000;
/** Files larger than this are skipped by grep. */
export const GREP_FILE_MAX_BYTES = 8 * 1024 * 1024;
/** read_file: lines returned when no limit is given. */
export const READ_DEFAULT_LINES = 2_000;

/** Room kept for the note a cut text ends with. */
const NOTE_ROOM = 200;

/** The first bytes of a text, at most `bytes` of UTF-8, never inside a character. */
export function headBytes(text: string, bytes: number): { text: string; total: number; kept: number } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return { text, total: buf.length, kept: buf.length };
  let end = bytes;
  // step back to a character boundary (a UTF-8 continuation byte is 10xxxxxx)
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end -= 1;
  return { text: buf.subarray(0, end).toString('utf8'), total: buf.length, kept: end };
}

/**
 * Cuts a text to at most `max` bytes of UTF-8, its note included, and says so. A cut text is not cut
 * again (it already fits).
 */
export function cutText(text: string, max = OUTPUT_MAX_BYTES): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  const head = headBytes(text, max - NOTE_ROOM);
  return `${head.text}\n[output cut: ${head.total} bytes, the first ${head.kept} kept (limit ${max} bytes)]`;
}

/**
 * A JSON value as stored (a `json` column holds at most OUTPUT_MAX_BYTES): the value itself when its JSON
 * fits, else `{ truncated: true, bytes, head }` with the start of its JSON text.
 */
export function storableJson(value: unknown, max = OUTPUT_MAX_BYTES): unknown {
  const text = JSON.stringify(value === undefined ? null : value);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= max) return value === undefined ? null : value;
  return { truncated: true, bytes, head: headBytes(text, max - 1024).text };
}
/**
 * Entries a sandbox's path rules may look at when it starts (pathrules.ts; the package answers one to three
 * questions for each, about 0.1 ms apiece): past it the sandbox is refused.
 */
export const PATH_RULES_WALK_MAX = 20_000;
/** Mounts the path rules may add to one sandbox (pathrules.ts): past it the sandbox is refused. */
export const PATH_RULES_MOUNTS_MAX = 256;
