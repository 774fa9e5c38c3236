/**
 * Tools the main process runs (for its own agent, and for workers through `proxy`): every builtin except
 * delegate_task / delegate_parallel (the executor owns those). Includes the worker's tools, for routes
 * that send them to the main process.
 */
import * as path from 'path';
import { applyPatch, parsePatch, StructuredPatch } from 'diff';
import { SHELL_TIMEOUT_DEFAULT_MS } from '../limits';
import { isInside, realOrAncestor } from '../realpath';
import { gatePath, optStr, str } from './args';
import { execOutput } from './local';
import type { Within } from '../operations/types';
import { TEXT_MAX_CHARS } from '../../wire/validate';
import { MainServices, ToolContext, ToolError, ToolHandler, ToolImpl } from './types';
import { errorMessage } from '../../lib/errortext';

function services(ctx: ToolContext): MainServices {
  if (!ctx.services) throw new ToolError('this tool runs only in the main process');
  return ctx.services;
}

function agentOf(ctx: ToolContext): number {
  if (ctx.agentId === null) throw new ToolError('this tool needs an agent');
  return ctx.agentId;
}

/** A file's text, or null when it does not exist. `within`: the folders it must really lie in. */
async function readText(ctx: ToolContext, p: string, within: Within): Promise<string | null> {
  try {
    return (await ctx.ops.fs.readFile(p, within)).toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EISDIR') throw new ToolError(`${p} is a folder`);
    if (code === 'ENOTREG') throw new ToolError(`${p} is not a regular file`);
    throw err;
  }
}

/** `{ path, content }` */
export const writeFile: ToolImpl = async (args, ctx) => {
  const p = gatePath(ctx, 'path', 'none');
  const content = str(args, 'content');
  await ctx.ops.fs.writeFile(p, content, ctx.within);
  return `wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${p}`;
};

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n += 1;
  return n;
}

/** `{ path, oldText, newText }`: `oldText` must occur exactly once. */
export const edit: ToolImpl = async (args, ctx) => {
  const p = gatePath(ctx, 'path', 'none');
  const oldText = str(args, 'oldText');
  const newText = str(args, 'newText');
  if (oldText === '') throw new ToolError('oldText must not be empty');
  const text = await readText(ctx, p, ctx.within);
  if (text === null) throw new ToolError(`${p}: no such file`);
  const n = occurrences(text, oldText);
  if (n === 0) throw new ToolError(`oldText was not found in ${p}`);
  if (n > 1) throw new ToolError(`oldText occurs ${n} times in ${p}; include more context so that it occurs once`);
  const i = text.indexOf(oldText);
  await ctx.ops.fs.writeFile(p, text.slice(0, i) + newText + text.slice(i + oldText.length), ctx.within);
  return `edited ${p}`;
};

/** `a/x` and `b/x` (git) name `x`; `/dev/null` names no file. */
function diffName(name: string | undefined): string | null {
  if (name === undefined || name === '' || name === '/dev/null') return null;
  const clean = name.split('\t')[0];
  return /^[ab]\//.test(clean) ? clean.slice(2) : clean;
}

/** `{ patch }`: a unified diff over one or more files, applied to all of them or to none. */
export const patch: ToolImpl = async (args, ctx) => {
  const text = str(args, 'patch');
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(text);
  } catch (err) {
    throw new ToolError(`patch is not a unified diff: ${errorMessage(err)}`);
  }
  parsed = parsed.filter(f => f.hunks.length > 0 || diffName(f.oldFileName) || diffName(f.newFileName));
  if (parsed.length === 0) throw new ToolError('patch names no file');
  const root = ctx.policy.workspaceRoots[0];
  const checked = new Set(ctx.paths.filter(p => p.write).map(p => p.path));
  const files = parsed.map(f => {
    const oldName = diffName(f.oldFileName);
    const newName = diffName(f.newFileName);
    const name = newName ?? oldName;
    if (name === null) throw new ToolError('a file of the patch has no name');
    const target = path.resolve(root, name);
    if (!checked.has(target)) throw new ToolError(`${name}: not among the paths checked for this patch`);
    return { f, oldName, newName, name, target };
  });
  const writes: Array<{ path: string; content: string | null }> = [];
  const summary: string[] = [];
  for (const { f, oldName, newName, name, target } of files) {
    const before = oldName === null ? '' : await readText(ctx, target, ctx.within);
    if (before === null) throw new ToolError(`${name}: no such file to patch`);
    const after = applyPatch(before, f);
    if (after === false) throw new ToolError(`${name}: the patch does not apply (a hunk does not match the file)`);
    if (newName === null) {
      writes.push({ path: target, content: null });
      summary.push(`deleted ${target}`);
    } else {
      writes.push({ path: target, content: after });
      summary.push(`${oldName === null ? 'created' : 'patched'} ${target}`);
    }
  }
  await ctx.ops.fs.writeFiles(writes, ctx.within);
  return summary.join('\n');
};

/** `{ items: [{ text, done? }] }`: replaces the todo list; answers it. */
export const todo: ToolImpl = async (args, ctx) => {
  const raw = args.items;
  if (!Array.isArray(raw)) throw new ToolError('items must be an array');
  const items = raw.map((it, i) => {
    if (it === null || typeof it !== 'object' || typeof (it as { text?: unknown }).text !== 'string') {
      throw new ToolError(`items[${i}].text must be a string`);
    }
    return { text: (it as { text: string }).text, done: (it as { done?: unknown }).done === true };
  });
  await services(ctx).todos.set(items);
  if (items.length === 0) return 'todo list cleared';
  return items.map(i => `[${i.done ? 'x' : ' '}] ${i.text}`).join('\n');
};

/**
 * `{ question }`: the main agent's question pauses its turn for the user (`asks`: the executor stops the
 * turn, the session's next message is the answer). A sub-agent has no user to ask (its call reaches here
 * from its worker): it is told to go on with what it knows and say what it assumed.
 */
export const CLARIFY: ToolHandler = {
  name: 'clarify',
  placement: 'main',
  asks: args => ({ question: str(args, 'question') }),
  run: async args =>
    `No user can answer a sub-agent's question (${str(args, 'question')}): go on with the most reasonable assumption, and say in your answer what you assumed.`,
};

/** `{ reason }`: hands the task to a human: records an escalation an operator sees and resolves. */
export const escalate: ToolImpl = async (args, ctx) => {
  const reason = str(args, 'reason');
  if (reason.trim() === '') throw new ToolError('reason must not be empty');
  // the column's limit, said as the call's error before anything is stored
  if ([...reason].length > TEXT_MAX_CHARS) throw new ToolError(`reason must be at most ${TEXT_MAX_CHARS} characters`);
  const r = await services(ctx).escalations.record(agentOf(ctx), reason);
  return `Escalation #${r.id} recorded: an operator will see it and answer.`;
};

export const memorySave: ToolImpl = async (args, ctx) => {
  const content = str(args, 'content');
  if (content.trim() === '') throw new ToolError('content must not be empty');
  if ([...content].length > TEXT_MAX_CHARS) throw new ToolError(`content must be at most ${TEXT_MAX_CHARS} characters`);
  const r = await services(ctx).memory.save(agentOf(ctx), content);
  return `saved memory #${r.id}`;
};

/** `{ query }`: the agent's memories containing the query (all when empty), newest first. */
export const memoryRecall: ToolImpl = async (args, ctx) => {
  const query = str(args, 'query');
  const rows = await services(ctx).memory.recall(agentOf(ctx), query, 20);
  if (rows.length === 0) return `no memory matches ${JSON.stringify(query)}`;
  return rows.map(r => `#${r.id} (${new Date(r.createTime).toISOString()}): ${r.content}`).join('\n');
};

/**
 * The folder of a skill (a direct child of the skills folder: the gate has checked `name` is a plain
 * name) and a file inside it (never outside, symlinks included).
 */
async function skillPath(ctx: ToolContext, name: string, file: string | null): Promise<{ dir: string; file: string }> {
  const root = services(ctx).skillsDir;
  const dir = path.join(root, name);
  if (path.dirname(dir) !== path.resolve(root) || path.basename(dir) !== name) {
    throw new ToolError(`${JSON.stringify(name)} does not name a folder inside the skills folder`);
  }
  const target = path.resolve(dir, file ?? 'SKILL.md');
  const realDir = await realOrAncestor(dir);
  let realTarget: string;
  try {
    realTarget = await realOrAncestor(target);
  } catch {
    throw new ToolError(`${file}: cannot be resolved inside skill ${name}`);
  }
  if (!isInside(target, dir) || !isInside(realTarget, realDir) || realTarget === realDir) {
    throw new ToolError(`${file}: outside the folder of skill ${name}`);
  }
  return { dir, file: target };
}

export const readSkill: ToolImpl = async (args, ctx) => {
  const name = str(args, 'name');
  const p = await skillPath(ctx, name, null);
  const text = await readText(ctx, p.file, [p.dir]);
  // the skills folder is the backend's (under its data folder): its path is not told
  if (text === null) throw new ToolError(`no skill named ${name} (its folder has no SKILL.md)`);
  return text;
};

export const readSkillFile: ToolImpl = async (args, ctx) => {
  const name = str(args, 'name');
  const file = str(args, 'path');
  const p = await skillPath(ctx, name, file);
  const text = await readText(ctx, p.file, [p.dir]);
  if (text === null) throw new ToolError(`skill ${name} has no file ${file}`);
  return text;
};

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `{ name, script, args? }`: runs a script of the skill folder with bash, in the shell sandbox (the `bash` time limit). */
export const executeSkill: ToolImpl = async (args, ctx) => {
  const name = str(args, 'name');
  const script = str(args, 'script');
  const p = await skillPath(ctx, name, script);
  const st = await ctx.ops.fs.stat(p.file, [p.dir]).catch(() => null);
  if (!st || st.type !== 'file') throw new ToolError(`skill ${name} has no script ${script}`);
  const extra = args.args === undefined || args.args === null ? [] : args.args;
  if (!Array.isArray(extra) || extra.some(a => typeof a !== 'string')) throw new ToolError('args must be an array of strings');
  const timeoutMs = SHELL_TIMEOUT_DEFAULT_MS;
  const roots = ctx.policy.workspaceRoots;
  // Inside the sandbox only the real folder is mounted: name the script by its real path.
  const realDir = await realOrAncestor(p.dir);
  const realScript = await realOrAncestor(p.file);
  const command = ['/bin/bash', realScript, ...(extra as string[])].map(shellQuote).join(' ');
  const r = await ctx.ops.process.exec({
    command,
    cwd: roots[0] ?? realDir,
    roots,
    readonly: ctx.policy.readonly,
    readOnlyBinds: [realDir],
    timeoutMs,
  });
  return execOutput(r, timeoutMs);
};

/** `{ action: 'create' | 'update' | 'delete', name, content? }`: writes or deletes a skill (its SKILL.md). */
export const skillManage: ToolImpl = async (args, ctx) => {
  const name = str(args, 'name');
  const action = str(args, 'action');
  const p = await skillPath(ctx, name, null);
  const exists = (await ctx.ops.fs.stat(p.file, [p.dir]).catch(() => null)) !== null;
  if (action === 'delete') {
    if (!exists) throw new ToolError(`no skill named ${name}`);
    await ctx.ops.fs.removeTree(p.dir, [services(ctx).skillsDir]);
    return `deleted skill ${name}`;
  }
  if (action !== 'create' && action !== 'update') throw new ToolError(`action must be create, update or delete, got ${JSON.stringify(action)}`);
  const content = optStr(args, 'content');
  if (content === null) throw new ToolError(`content is needed to ${action} a skill`);
  if (action === 'create' && exists) throw new ToolError(`skill ${name} already exists (use update)`);
  if (action === 'update' && !exists) throw new ToolError(`no skill named ${name} (use create)`);
  await ctx.ops.fs.writeFile(p.file, content, [p.dir]);
  return `${action === 'create' ? 'created' : 'updated'} skill ${name}`;
};

/** The tools only the main process runs (the database, the skills folder, a write checked there). */
export const MAIN_HANDLERS: readonly ToolHandler[] = [
  { name: 'write_file', placement: 'main', run: writeFile },
  { name: 'edit', placement: 'main', run: edit },
  { name: 'patch', placement: 'main', run: patch },
  { name: 'todo', placement: 'main', run: todo },
  CLARIFY,
  { name: 'escalate', placement: 'main', run: escalate },
  { name: 'memory_save', placement: 'main', run: memorySave },
  { name: 'memory_recall', placement: 'main', run: memoryRecall },
  { name: 'read_skill', placement: 'main', run: readSkill },
  { name: 'read_skill_file', placement: 'main', run: readSkillFile },
  { name: 'execute_skill', placement: 'main', run: executeSkill },
  { name: 'skill_manage', placement: 'main', run: skillManage },
];
