import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectDataSource, InjectEntityModel } from '@midwayjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { NetaClawToolEntity } from '../entity/tool';
import { AppError, invalidInput, notFound } from '../wire/errors';
import { withSyncLock } from '../db/datasource';
import { dbWriteLock } from '../lib/mutex';
import { policy, ToolGovernanceRowInput, ToolManifest } from '../wire/policy';
import { syncFaultAt, syncPauseMs } from '../config/settings';
import { ToolPageDTO } from '../dto/page';
import { ToolInfoQueryDTO } from '../dto/query';
import { CatalogService } from './catalog';
import { checkIntRange, checkTextLimit, has, Obj, parseId, requireObject } from '../wire/validate';
import { parseVersion, staleVersion, updateRow } from '../db/versioned';
import { log } from '../config/log';

export interface SyncSummary {
  inserts: number;
  updates: number;
  orphans: string[];
}

let fields: { all: string[]; human: string[] } | undefined;

/** The row fields of the package: `name`, the mirror fields, the human fields (catalogInfo(), read once). */
export function rowFields(): { all: string[]; human: string[] } {
  if (!fields) {
    const info = policy().catalogInfo();
    fields = { all: ['name', ...info.mirrorFields, ...info.humanFields], human: info.humanFields };
  }
  return fields;
}

/** The ToolGovernanceRowInput view of a table row (only the row fields, plain values). */
export function toGovernanceRow(e: NetaClawToolEntity): ToolGovernanceRowInput {
  const row: Record<string, unknown> = {};
  for (const f of rowFields().all) row[f] = (e as unknown as Obj)[f] ?? null;
  return row as unknown as ToolGovernanceRowInput;
}

/**
 * Tool registry (seed 001 Task 4): catalog → table sync, admin queries and the guarded update.
 * Writes go through `dbWriteLock`, so a sync transaction never interleaves with another write.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ToolService {
  @InjectEntityModel(NetaClawToolEntity)
  repo: Repository<NetaClawToolEntity>;

  @InjectDataSource()
  dataSource: DataSource;

  @Inject()
  catalog: CatalogService;

  /**
   * Idempotent catalog sync: the package plans inserts and updates from the current rows; they are
   * applied in ONE transaction, so a failure leaves the table exactly as it was. Never deletes.
   * Rows are read and the plan made under the cross-instance sync lock (MySQL/MariaDB), so instances
   * started together insert each tool once: the second one sees the first one's rows.
   */
  async sync(): Promise<SyncSummary> {
    return dbWriteLock.run(() => withSyncLock(this.dataSource, 'catalog sync', () => this.syncLocked()));
  }

  private async syncLocked(): Promise<SyncSummary> {
    const rows = await this.repo.find({ order: { id: 'ASC' } });
    const plan = policy().syncCatalog(this.catalog.catalog(), rows.map(toGovernanceRow));
    if (plan.inserts.length > 0 || plan.updates.length > 0) {
      const faultAt = syncFaultAt();
      const pauseMs = syncPauseMs();
      let writes = 0;
      const beforeWrite = async () => {
        writes += 1;
        if (pauseMs !== undefined && writes === 2) {
          log().info(`[netaclaw] sync paused after its first write for ${pauseMs} ms (NETACLAW_TEST_SYNC_PAUSE_MS)`);
          await new Promise(resolve => setTimeout(resolve, pauseMs));
        }
        if (faultAt !== undefined && writes === faultAt) {
          throw new Error(`injected sync fault before write ${writes} (NETACLAW_TEST_SYNC_FAIL_AT_WRITE)`);
        }
      };
      await this.dataSource.transaction(async em => {
        for (const insert of plan.inserts) {
          await beforeWrite();
          await em.insert(NetaClawToolEntity, pickRowFields(insert));
        }
        for (const update of plan.updates) {
          await beforeWrite();
          const set = pickRowFields(update.set);
          if (Object.keys(set).length === 0) continue;
          await em.createQueryBuilder().update(NetaClawToolEntity).set(set).where('name = :name', { name: update.name }).execute();
        }
      });
    }
    return { inserts: plan.inserts.length, updates: plan.updates.length, orphans: plan.orphans };
  }

  async page(input: ToolPageDTO) {
    const page = input.page ?? 1;
    const size = input.size ?? 20;
    const { name, toolset, capability } = input;
    const status = input.status ?? undefined;
    const qb = this.repo.createQueryBuilder('t');
    if (name !== undefined && name !== null && name !== '') {
      qb.andWhere("t.name LIKE :name ESCAPE '!'", { name: `%${name.replace(/[!%_]/g, c => '!' + c)}%` });
    }
    if (toolset !== undefined && toolset !== null && toolset !== '') qb.andWhere('t.toolset = :toolset', { toolset });
    if (capability !== undefined && capability !== null && capability !== '') qb.andWhere('t.capability = :capability', { capability });
    if (status !== undefined) qb.andWhere('t.status = :status', { status });
    qb.orderBy('t.sort', 'ASC')
      .addOrderBy('t.id', 'ASC')
      .skip((page - 1) * size)
      .take(size);
    const [list, total] = await qb.getManyAndCount();
    return { list, pagination: { page, size, total } };
  }

  async info(query: ToolInfoQueryDTO): Promise<NetaClawToolEntity> {
    if (query.id !== undefined) return this.mustGet({ id: Number(query.id) });
    if (query.name !== undefined) return this.mustGet({ name: query.name });
    throw invalidInput('id or name is required');
  }

  async all(): Promise<NetaClawToolEntity[]> {
    return this.repo.find({ order: { sort: 'ASC', id: 'ASC' } });
  }

  /** All rows, as resolver governance input. */
  async governanceRows(): Promise<ToolGovernanceRowInput[]> {
    return (await this.repo.find({ order: { id: 'ASC' } })).map(toGovernanceRow);
  }

  /**
   * Guarded update: the package's validateToolUpdate decides; refused → 400 update_refused and
   * nothing written; accepted → UPDATE … SET only the human fields present in the patch. With
   * `version`, a row that changed since that version → 409 conflict and nothing written.
   */
  async update(input: unknown): Promise<NetaClawToolEntity> {
    const body = requireObject(input, 'request body');
    let row: NetaClawToolEntity;
    if (has(body, 'id')) {
      row = await this.mustGet({ id: parseId(body.id, 'id') });
    } else if (has(body, 'name')) {
      if (typeof body.name !== 'string' || body.name === '') throw invalidInput('name must be a non-empty string');
      row = await this.mustGet({ name: body.name });
    } else {
      throw invalidInput('id or name is required');
    }
    const version = parseVersion(body);
    if (version !== undefined && version !== row.version) throw staleVersion(`tool ${row.name}`, version, row);
    const patch: Obj = { ...body };
    delete patch.id;
    const check = policy().validateToolUpdate({ row: toGovernanceRow(row), patch, catalog: this.catalog.catalog() });
    if (!check.ok) {
      const list = check.errors.map(e => `${e.field}: ${e.code}`).join(', ');
      throw new AppError(400, 'update_refused', `update of tool ${row.name} refused (${list})`, check.errors);
    }
    const set: Obj = {};
    const accepted = check.row as unknown as Obj;
    for (const f of rowFields().human) {
      if (has(patch, f)) {
        set[f] = accepted[f] ?? null;
      }
    }
    checkTextLimit(set.description, 'description');
    checkTextLimit(set.promptHint, 'promptHint');
    checkIntRange(set.sort, 'sort');
    if (Object.keys(set).length > 0 && !(await dbWriteLock.run(() => updateRow(this.repo, row.id, set, version)))) {
      // the row moved on between the read above and the write, or is gone (404)
      const current = await this.mustGet({ id: row.id });
      if (version !== undefined) throw staleVersion(`tool ${row.name}`, version, current);
    }
    return this.mustGet({ id: row.id });
  }

  /** What the agent-edit page needs: selectable toolsets, the tool rows, the static profiles. */
  async forAgent(): Promise<{ toolsets: string[]; tools: NetaClawToolEntity[]; profiles: ToolManifest[] }> {
    const profiles = this.catalog.manifests();
    // the catalog's toolsets in first-appearance order, then the reserved ones it has no tool in
    const toolsets = policy()
      .catalogInfo(this.catalog.catalog())
      .toolsets.map(t => t.name);
    const names = new Set(profiles.map(p => p.name));
    const tools = (await this.all()).filter(r => names.has(r.name));
    return { toolsets, tools, profiles };
  }

  private async mustGet(where: { id: number } | { name: string }): Promise<NetaClawToolEntity> {
    const row = await this.repo.findOneBy(where);
    if (!row) {
      throw notFound('id' in where ? `no tool with id ${where.id}` : `no tool named ${JSON.stringify(where.name)}`);
    }
    return row;
  }
}

function pickRowFields(o: object): Obj {
  const out: Obj = {};
  for (const f of rowFields().all) {
    if (Object.prototype.hasOwnProperty.call(o, f)) out[f] = (o as Obj)[f];
  }
  return out;
}
