/**
 * The tools a worker can run itself (their manifests have `supportedInWorker`): read_file, list_dir,
 * find_files, grep, bash. The main process uses the same handlers when its routes send it one.
 */
import { headBytes, READ_DEFAULT_LINES, SEARCH_RESULTS_MAX, SHELL_TIMEOUT_DEFAULT_MS, SHELL_TIMEOUT_MAX_MS, OUTPUT_MAX_BYTES } from '../limits';
import type { ExecResult } from '../operations/types';
import type { WorkerPolicyWire } from '../protocol';
import { gatePath, optInt, optStr, str } from './args';
import { linePattern } from '../regex';
import { ToolError, ToolHandler, ToolImpl, ToolOutput } from './types';

/** read_file refuses files larger than this (read a slice of a smaller file with offset/limit). */
const READ_FILE_MAX_BYTES = 32 * 1024 * 1024;

function errnoMessage(err: unknown, p: string): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') throw new ToolError(`${p}: no such file or folder`);
  if (code === 'EISDIR') throw new ToolError(`${p} is a folder`);
  if (code === 'ENOTDIR') throw new ToolError(`${p}: a part of the path is not a folder`);
  if (code === 'ENOTREG') throw new ToolError(`${p} is not a regular file`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'ERR_ACCESS_DENIED') throw new ToolError(`${p}: permission denied`);
  throw err;
}

/** `{ path, offset?, limit? }`: lines `offset` (1-based, default 1) to `offset + limit - 1`. */
export const readFile: ToolImpl = async (args, ctx) => {
  const p = gatePath(ctx, 'path', 'none');
  const offset = optInt(args, 'offset', 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const limit = optInt(args, 'limit', 1, Number.MAX_SAFE_INTEGER) ?? READ_DEFAULT_LINES;
  let st;
  try {
    st = await ctx.ops.fs.stat(p, ctx.within);
  } catch (err) {
    errnoMessage(err, p);
  }
  if (st.type === 'dir') throw new ToolError(`${p} is a folder (use list_dir)`);
  if (st.size > READ_FILE_MAX_BYTES) throw new ToolError(`${p} is ${st.size} bytes; read_file reads files up to ${READ_FILE_MAX_BYTES} bytes`);
  let text: string;
  try {
    text = (await ctx.ops.fs.readFile(p, ctx.within)).toString('utf8');
  } catch (err) {
    errnoMessage(err, p);
  }
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  if (text === '') return '';
  if (offset > lines.length) throw new ToolError(`offset ${offset} is past the end of ${p} (${lines.length} lines)`);
  const slice = lines.slice(offset - 1, offset - 1 + limit);
  const last = offset - 1 + slice.length;
  let out = slice.join('\n');
  if (offset > 1 || last < lines.length) out += `\n[lines ${offset}-${last} of ${lines.length}]`;
  return out;
};

/** `{ path? }`: one entry a line, folders with a trailing `/`, symlinks with ` -> (symlink)`, files with their size. */
export const listDir: ToolImpl = async (_args, ctx) => {
  const p = gatePath(ctx, 'path', 'root');
  let entries;
  try {
    entries = await ctx.ops.fs.readDir(p, ctx.within);
  } catch (err) {
    errnoMessage(err, p);
  }
  if (entries.length === 0) return `${p} is empty`;
  return entries
    .map(e => (e.type === 'dir' ? `${e.name}/` : e.type === 'symlink' ? `${e.name} -> (symlink)` : e.type === 'file' ? `${e.name}  ${e.size}` : e.name))
    .join('\n');
};

/** `{ pattern, path? }`: paths relative to `path` (default: the first root), one a line. */
export const findFiles: ToolImpl = async (args, ctx) => {
  const pattern = str(args, 'pattern');
  if (pattern === '') throw new ToolError('pattern must not be empty');
  const p = gatePath(ctx, 'path', 'root');
  let found;
  try {
    found = await ctx.ops.search.findFiles(p, pattern, SEARCH_RESULTS_MAX, ctx.within);
  } catch (err) {
    errnoMessage(err, p);
  }
  if (found.paths.length === 0) return `no files match ${pattern} under ${p}`;
  return found.paths.join('\n') + (found.truncated ? `\n[results cut at ${found.paths.length}]` : '');
};

/** `{ pattern, path?, glob? }`: `file:line:text` per matching line (a regular expression matched in linear time). */
export const grep: ToolImpl = async (args, ctx) => {
  const pattern = str(args, 'pattern');
  const regex = linePattern(pattern);
  const glob = optStr(args, 'glob');
  const p = gatePath(ctx, 'path', 'root');
  let r;
  try {
    r = await ctx.ops.search.grep(p, regex, glob, SEARCH_RESULTS_MAX, ctx.within);
  } catch (err) {
    errnoMessage(err, p);
  }
  if (r.matches.length === 0) return `no matches for ${pattern} in ${r.filesSearched} file(s) under ${p}`;
  return r.matches.map(m => `${m.path}:${m.line}:${m.text}`).join('\n') + (r.truncated ? `\n[matches cut at ${r.matches.length}]` : '');
};

/** Formats a sandboxed run: its output, then a line saying how it ended. */
export function execOutput(r: ExecResult, timeoutMs: number): ToolOutput {
  // Leave room for the notes, so that the runner does not cut them off.
  const head = headBytes(r.output, OUTPUT_MAX_BYTES - 512);
  let out = head.text;
  if (r.outputBytes > head.kept) out += `\n[output cut: ${r.outputBytes} bytes, the first ${head.kept} kept]`;
  let error: string | undefined;
  if (r.killedFor) error = `killed: ${r.killedFor}`;
  else if (r.timedOut) error = `killed: time limit of ${timeoutMs} ms reached`;
  else if (r.killedForOutput) error = `killed: output passed the hard limit (${r.outputBytes} bytes)`;
  else if (r.exitCode !== 0) error = r.exitCode === null ? `ended by signal ${r.signal}` : `exit code ${r.exitCode}`;
  out += `\n[${error ?? 'exit code 0'}]`;
  return error ? { output: out, error } : { output: out };
}

/** `{ command, timeoutMs? }`: runs in the first root, inside the shell sandbox (L3). */
export const bash: ToolImpl = async (args, ctx) => {
  const command = str(args, 'command');
  const timeoutMs = optInt(args, 'timeoutMs', 1, SHELL_TIMEOUT_MAX_MS) ?? SHELL_TIMEOUT_DEFAULT_MS;
  const spec = bashSandbox(ctx.policy);
  if (!spec) throw new ToolError('bash needs a workspace root');
  const r = await ctx.ops.process.exec({ command, ...spec, timeoutMs });
  return execOutput(r, timeoutMs);
};

/** Where `bash` runs for a policy: the roots bound (read-only under `readonly`), in the first; null without a root. */
export function bashSandbox(policy: WorkerPolicyWire): { cwd: string; roots: string[]; readonly: boolean } | null {
  const roots = policy.workspaceRoots;
  return roots.length === 0 ? null : { cwd: roots[0], roots, readonly: policy.readonly };
}

/** The tools with a worker implementation: they run in a worker, and in the main process when its routes send them there. */
export const LOCAL_HANDLERS: readonly ToolHandler[] = [
  { name: 'read_file', placement: 'both', run: readFile },
  { name: 'list_dir', placement: 'both', run: listDir },
  { name: 'find_files', placement: 'both', run: findFiles },
  { name: 'grep', placement: 'both', run: grep },
  { name: 'bash', placement: 'both', run: bash },
];
