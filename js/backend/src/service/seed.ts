import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectDataSource } from '@midwayjs/typeorm';
import { DataSource } from 'typeorm';
import { withSyncLock } from '../db/datasource';
import { readJsonArray } from '../config/jsonfile';
import { ValidateService } from '@midwayjs/validate';
import { AgentAddDTO } from '../dto/agent';
import { fromValidationError } from '../dto/rules';
import { requireObject } from '../wire/validate';
import { AgentService, agentValues } from './agent';
import { errorMessage } from '../lib/errortext';

/** Why a seed file cannot be used: the message names the file and the entry. */
export class SeedFileError extends Error {
  constructor(file: string, detail: string) {
    super(`NETACLAW_SEED_FILE ${file}: ${detail}`);
    this.name = 'SeedFileError';
  }
}

/**
 * Example agents for a first look (the demo sets `NETACLAW_SEED_FILE`): a JSON array of AgentInput,
 * each added as `POST /agent/add` adds it (the same checks), plus `crew`: the names of agents of the same
 * file that form its crew (stored as their ids, `crewMembers`, once all are added) — only when the agent table is empty, so a
 * database with agents of its own is never touched. Instances started together on one MySQL/MariaDB
 * database seed under the catalog sync's lock: the second sees the first one's agents.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class SeedService {
  @Inject()
  agentService: AgentService;

  @Inject()
  validateService: ValidateService;

  @InjectDataSource()
  dataSource: DataSource;

  /** Adds the file's agents to an empty table: how many were added (0 when there were agents). */
  async seed(file: string): Promise<number> {
    const agents = readJsonArray(file, 'agents (AgentInput)', detail => new SeedFileError(file, detail));
    // every entry checked before the first is added: a bad file adds nothing
    const names = agents.map(a => (a && typeof a === 'object' ? (a as { name?: unknown }).name : undefined));
    const crews: string[][] = [];
    const checked = agents.map((input, i) => {
      try {
        const { crew, ...fields } = requireObject(input, `entry [${i}]`);
        if (crew !== undefined && (!Array.isArray(crew) || crew.some(n => typeof n !== 'string' || !names.includes(n)))) {
          throw new Error('crew must list names of agents of this file');
        }
        crews[i] = (crew as string[] | undefined) ?? [];
        const dto = (this.validateService.validate(AgentAddDTO, fields)?.value ?? fields) as AgentAddDTO;
        agentValues(dto);
        return dto;
      } catch (err) {
        throw new SeedFileError(file, `entry [${i}]: ${fromValidationError(err)?.message ?? errorMessage(err)}`);
      }
    });
    return withSyncLock(this.dataSource, 'demo seed', async () => {
      if ((await this.agentService.repo.count()) > 0) return 0;
      const ids: number[] = [];
      for (const [i, input] of checked.entries()) {
        try {
          ids.push((await this.agentService.add(input, true)).id);
        } catch (err) {
          throw new SeedFileError(file, `entry [${i}]: ${errorMessage(err)}`);
        }
      }
      for (const [i, crew] of crews.entries()) {
        if (crew.length === 0) continue;
        const crewMembers = crew.map(n => ids[names.indexOf(n)]);
        try {
          await this.agentService.update({ id: ids[i], crewMembers } as never);
        } catch (err) {
          throw new SeedFileError(file, `entry [${i}]: crew: ${errorMessage(err)}`);
        }
      }
      return checked.length;
    });
  }
}
