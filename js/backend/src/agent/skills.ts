/**
 * What the system prompt says of an agent's skills (seed 001 Task 5.1 / 10.3, Layer 3): each bound skill's
 * name and description, read from its `SKILL.md` in the skills folder — the `description:` of its front
 * matter, or else its first line of text. A name that is not a plain folder name, a folder that is not
 * inside the skills folder (symlinks included) or a skill without `SKILL.md` is listed by its name only.
 */
import { SKILLS_DIR } from '../config/settings';
import { describeSkill, SkillSummary, summary } from '../lib/skillfolder';

export { describeSkill, SkillSummary };

/** The summaries of these skills, in order (blank names left out). */
export async function skillSummaries(names: readonly string[], root: string = SKILLS_DIR): Promise<SkillSummary[]> {
  return Promise.all(
    names
      .filter(n => n.trim() !== '')
      .map(async n => {
        const { name, description } = await summary(n, root);
        return { name, description };
      })
  );
}
