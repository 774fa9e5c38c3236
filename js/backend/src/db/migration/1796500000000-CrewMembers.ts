/**
 * An agent's crew (`netaclaw_agent.crewMembers`): the agents `delegate_task` may hand a task to by name.
 * Frozen once it has run somewhere.
 */
import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { log } from '../../config/log';

const CREW_MEMBERS = new TableColumn({ name: 'crewMembers', type: 'json', isNullable: true, comment: '团队成员 agent ID 列表' });

@Provide()
@Scope(ScopeEnum.Singleton)
export class CrewMembers1796500000000 implements MigrationInterface {
  name = 'CrewMembers1796500000000';

  async up(qr: QueryRunner): Promise<void> {
    // a migration that stopped half-way is completed by the next start
    if (!(await qr.hasColumn('netaclaw_agent', CREW_MEMBERS.name))) {
      await qr.addColumn('netaclaw_agent', CREW_MEMBERS);
      log().info('[netaclaw] schema agents: added netaclaw_agent.crewMembers');
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    if (await qr.hasColumn('netaclaw_agent', CREW_MEMBERS.name)) await qr.dropColumn('netaclaw_agent', CREW_MEMBERS.name);
  }
}
