import { Controller, Get, Inject } from '@midwayjs/core';
import { SkillService } from '../service/skill';

/** The skills installed in the skills folder, for the agent page's picker (docs/backend-api.md, "Skills"). */
@Controller('/admin/netaclaw/skill') // policy-vocabulary: a route's path (its segments are words, not kinds)
export class SkillController {
  @Inject()
  skillService: SkillService;

  @Get('/list')
  async list() {
    return this.skillService.list();
  }
}
