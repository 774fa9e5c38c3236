import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { SKILLS_DIR } from '../config/settings';
import { installedSkills, SkillSummary, summary } from '../lib/skillfolder';
import { AppError, invalidInput } from '../wire/errors';

/** The code of a skill name that names no installed skill (docs/backend-api.md, "Skills"). */
export const SKILL_NOT_INSTALLED = 'skill_not_installed';

/**
 * The skills installed in the skills folder (`NETACLAW_SKILLS_DIR`), and the check of the skills an agent
 * binds: each must name an installed skill, once. A name the agent binds already (a skill removed from
 * the folder since) is kept: saving the agent does not force the user to drop it.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class SkillService {
  /** The root read; a test may point it elsewhere. */
  root: string = SKILLS_DIR;

  async list(): Promise<{ list: SkillSummary[] }> {
    return { list: await installedSkills(this.root) };
  }

  /**
   * Refuses (400) a list binding a skill twice (`invalid_input`) or a name that is neither installed nor
   * among `kept` (`skill_not_installed`, naming it and its index). Blank names are the DTO's to refuse.
   */
  async check(names: readonly string[] | null | undefined, kept: readonly string[] = []): Promise<void> {
    if (!names) return;
    const seen = new Set<string>();
    for (const [i, name] of names.entries()) {
      if (seen.has(name)) throw invalidInput(`skills[${i}]: ${JSON.stringify(name)} is listed twice`);
      seen.add(name);
      if (kept.includes(name)) continue;
      if ((await summary(name, this.root)).installed) continue;
      throw new AppError(
        400,
        SKILL_NOT_INSTALLED,
        `skills[${i}]: no installed skill is named ${JSON.stringify(name)} (a skill is a folder of the skills folder with a SKILL.md)`,
        [{ field: 'skills', code: SKILL_NOT_INSTALLED }],
        { name, index: i }
      );
    }
  }
}
