/**
 * The skills folder as read from disk: one folder per skill, its `SKILL.md` its text. What a skill says
 * of itself (its description) and which skills are installed — read by the prompt's skills layer and by
 * the skill list of the pages. No name that is not a folder of the skills folder (symlinks resolved
 * inside it) and has a `SKILL.md` is a skill.
 */
import { constants as fsConstants } from 'fs';
import * as fs from 'fs/promises';
import * as path from 'path';
import { isInside } from './paths';

export interface SkillSummary {
  name: string;
  /** One line, at most DESCRIPTION_MAX_CHARS; null when the skill says nothing of itself. */
  description: string | null;
}

const DESCRIPTION_MAX_CHARS = 300;
/** The most of a SKILL.md read for its description. */
const HEAD_BYTES = 8192;

function oneLine(s: string): string | null {
  const line = s.replace(/\s+/g, ' ').trim();
  return line === '' ? null : [...line].slice(0, DESCRIPTION_MAX_CHARS).join('');
}

/** The description of a SKILL.md's text: front matter `description:`, else its first line that is not a heading. */
export function describeSkill(text: string): string | null {
  const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (front) {
    const d = /^description:\s*(.*)$/m.exec(front[1]);
    if (d) return oneLine(d[1].replace(/^(['"])(.*)\1$/, '$2'));
  }
  const body = front ? text.slice(front[0].length) : text;
  for (const line of body.split('\n')) {
    const t = line.trim();
    if (t !== '' && !t.startsWith('#')) return oneLine(t);
  }
  return null;
}

/** The first HEAD_BYTES of a regular file (never waits on a FIFO or a device; a symlink is refused). */
async function readHead(file: string): Promise<string> {
  const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fsConstants;
  const h = await fs.open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  try {
    if (!(await h.stat()).isFile()) throw new Error(`${file} is not a regular file`);
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await h.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await h.close();
  }
}

/**
 * What the skills folder `root` holds under `name`: its description, and whether it is installed (a
 * folder directly inside `root` whose `SKILL.md`, symlinks resolved, is a regular file inside `root`).
 */
export async function summary(name: string, root: string): Promise<SkillSummary & { installed: boolean }> {
  const dir = path.join(root, name);
  const none = { name, description: null, installed: false };
  if (name === '' || path.basename(dir) !== name || path.dirname(dir) !== path.resolve(root)) return none;
  try {
    const realRoot = await fs.realpath(root);
    const file = await fs.realpath(path.join(dir, 'SKILL.md'));
    if (!isInside(file, realRoot)) return none;
    return { name, description: describeSkill(await readHead(file)), installed: true };
  } catch {
    return none;
  }
}

/** The most skills listed (a skills folder is a handful of folders; more are left out, in name order). */
export const INSTALLED_MAX = 500;

/**
 * The skills installed in `root`: each folder directly inside it with a readable `SKILL.md` (a regular
 * file, not a symlink out of the folder), by name, with its description. A missing folder has none.
 */
export async function installedSkills(root: string): Promise<SkillSummary[]> {
  let entries: string[];
  try {
    entries = (await fs.readdir(root, { withFileTypes: true })).filter(e => e.isDirectory() || e.isSymbolicLink()).map(e => e.name);
  } catch {
    return [];
  }
  entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: SkillSummary[] = [];
  for (const name of entries) {
    if (out.length >= INSTALLED_MAX) break;
    const s = await summary(name, root);
    if (s.installed) out.push({ name: s.name, description: s.description });
  }
  return out;
}
