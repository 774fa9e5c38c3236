/**
 * What the system prompt says of an agent's skills (seed 001 Task 5.1 / 10.3, Layer 3): each bound skill's
 * name and description, read from its `SKILL.md` in the skills folder — the `description:` of its front
 * matter, or else its first line of text. A name that is not a plain folder name, a folder that is not
 * inside the skills folder (symlinks included) or a skill without `SKILL.md` is listed by its name only.
 */
import { constants as fsConstants } from 'fs';
import * as fs from 'fs/promises';
import * as path from 'path';
import { SKILLS_DIR } from '../config/settings';
import { isInside } from '../lib/paths';

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

async function summary(name: string, root: string): Promise<SkillSummary> {
  const dir = path.join(root, name);
  if (name === '' || path.basename(dir) !== name || path.dirname(dir) !== path.resolve(root)) return { name, description: null };
  try {
    const realRoot = await fs.realpath(root);
    const file = await fs.realpath(path.join(dir, 'SKILL.md'));
    if (!isInside(file, realRoot)) return { name, description: null };
    return { name, description: describeSkill(await readHead(file)) };
  } catch {
    return { name, description: null };
  }
}

/** The summaries of these skills, in order (blank names left out). */
export async function skillSummaries(names: readonly string[], root: string = SKILLS_DIR): Promise<SkillSummary[]> {
  return Promise.all(names.filter(n => n.trim() !== '').map(n => summary(n, root)));
}
