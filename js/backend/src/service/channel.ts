import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { InjectDataSource, InjectEntityModel } from '@midwayjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { NetaClawAgentEntity } from '../entity/agent';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { withSyncLock } from '../db/datasource';
import { forUpdate } from '../db/versioned';
import { ChannelAddDTO, ChannelUpdateDTO, IdDTO } from '../dto/channel';
import { PageDTO } from '../dto/page';
import { AppError, invalidInput, notFound } from '../wire/errors';
import { dbWriteLock } from '../lib/mutex';
import { checkCapability } from '../wire/policy';
import { ModelEnv } from '../config/settings';
import { API_KEY_MAX_CHARS } from '../config/secrets';
import type { ChannelView as ApiChannelView } from '../wire/api-types';
import { IdQueryDTO } from '../dto/query';

/** A channel as the services hold it (the wire type, with its timestamps as dates). */
export type ChannelView = ApiChannelView<Date>;

/** `sk-…3f9a`: the first 3 and the last 4 characters of a key of 12 or more; nothing of a shorter one. */
export function maskKey(key: string | null): string | null {
  if (key === null || key === '') return null;
  const chars = [...key];
  return chars.length >= 12 ? `${chars.slice(0, 3).join('')}…${chars.slice(-4).join('')}` : '…';
}

export function channelView(c: NetaClawModelChannelEntity): ChannelView {
  return {
    id: c.id,
    name: c.name,
    baseUrl: c.baseUrl,
    model: c.model,
    capability: c.capability as ChannelView['capability'], // checked by checkCapability when stored
    isDefault: !!c.isDefault,
    hasApiKey: c.apiKey !== null && c.apiKey !== '',
    apiKeyMasked: maskKey(c.apiKey),
    createTime: c.createTime,
    updateTime: c.updateTime,
  };
}

/**
 * A key's UTF-8 length: at most API_KEY_MAX_CHARS bytes, so that its encrypted form fits its column whatever
 * its characters (the DTO counts characters; a key of 4-byte characters is four times longer encrypted).
 */
export function checkApiKeyBytes(key: string, field: string): string {
  if (Buffer.byteLength(key, 'utf8') > API_KEY_MAX_CHARS) throw invalidInput(`${field} must be at most ${API_KEY_MAX_CHARS} bytes in UTF-8`);
  return key;
}

/** An http(s) URL, the base of an OpenAI-compatible API (`…/v1`); a trailing slash is dropped. */
export function checkBaseUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidInput(`${field} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidInput(`${field} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

interface ChannelValues {
  name?: string;
  baseUrl?: string;
  apiKey?: string | null;
  model?: string;
  capability?: string;
  isDefault?: boolean;
}

/**
 * The columns a validated add or update sets (ChannelAddDTO / ChannelUpdateDTO checked the shape): names
 * trimmed, the URL checked, the capability checked by the package.
 */
function channelValues(o: ChannelAddDTO | ChannelUpdateDTO, creating: boolean): ChannelValues {
  const v: ChannelValues = {};
  if (o.name !== undefined) v.name = o.name.trim();
  if (o.baseUrl !== undefined) v.baseUrl = checkBaseUrl(o.baseUrl.trim(), 'baseUrl');
  if (o.model !== undefined) v.model = o.model.trim();
  // absent: kept (update) / none (add); null or "": removed
  if (o.apiKey !== undefined) v.apiKey = o.apiKey === null || o.apiKey.trim() === '' ? null : checkApiKeyBytes(o.apiKey.trim(), 'apiKey');
  if (o.capability !== undefined && o.capability !== null) v.capability = checkCapability(o.capability, 'capability');
  else if (creating) v.capability = 'text';
  if (o.isDefault !== undefined) v.isDefault = o.isDefault;
  return v;
}

/**
 * Model channels (`netaclaw_model_channel`). Whenever there is at least one channel, exactly one is the
 * default: the first channel added becomes it, making another one the default clears the flag on the
 * rest (one transaction), and deleting the default hands it to the oldest remaining channel.
 */
@Provide()
@Scope(ScopeEnum.Singleton)
export class ChannelService {
  @InjectEntityModel(NetaClawModelChannelEntity)
  repo: Repository<NetaClawModelChannelEntity>;

  @InjectEntityModel(NetaClawAgentEntity)
  agentRepo: Repository<NetaClawAgentEntity>;

  @InjectDataSource()
  dataSource: DataSource;

  async page(input: PageDTO) {
    const page = input.page ?? 1;
    const size = input.size ?? 20;
    const [list, total] = await this.repo.findAndCount({ order: { id: 'ASC' }, skip: (page - 1) * size, take: size });
    return { list: list.map(channelView), pagination: { page, size, total } };
  }

  async info(query: IdQueryDTO): Promise<ChannelView> {
    return channelView(await this.mustGet(Number(query.id)));
  }

  async add(input: ChannelAddDTO): Promise<ChannelView> {
    const v = channelValues(input, true);
    const id = await dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        await this.checkNameFree(em, v.name!, null);
        const hasDefault = (await em.countBy(NetaClawModelChannelEntity, { isDefault: true })) > 0;
        const isDefault = v.isDefault === true || !hasDefault;
        if (isDefault) await em.update(NetaClawModelChannelEntity, { isDefault: true }, { isDefault: false });
        const saved = await em.save(em.create(NetaClawModelChannelEntity, { apiKey: null, ...v, isDefault } as Partial<NetaClawModelChannelEntity>));
        return saved.id;
      })
    );
    return channelView(await this.mustGet(id));
  }

  /** Writes only the fields present; an update without `apiKey` keeps the stored key. */
  async update(input: ChannelUpdateDTO): Promise<ChannelView> {
    const id = Number(input.id);
    const v = channelValues(input, false);
    await dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        const row = await em.findOne(NetaClawModelChannelEntity, { where: { id }, ...forUpdate(em) });
        if (!row) throw notFound(`no model channel with id ${id}`);
        if (v.name !== undefined) await this.checkNameFree(em, v.name, id);
        if (v.isDefault === false && row.isDefault) {
          throw invalidInput(`channel ${id} is the default channel: make another channel the default instead`);
        }
        if (v.isDefault === true && !row.isDefault) {
          await em.update(NetaClawModelChannelEntity, { isDefault: true }, { isDefault: false });
        }
        if (Object.keys(v).length > 0) await em.update(NetaClawModelChannelEntity, { id }, v);
      })
    );
    return channelView(await this.mustGet(id));
  }

  /** Refused while an agent names the channel; the default passes to the oldest remaining channel. */
  async delete(input: IdDTO): Promise<{ id: number; defaultChannelId: number | null }> {
    const id = Number(input.id);
    return dbWriteLock.run(() =>
      this.dataSource.transaction(async em => {
        const row = await em.findOne(NetaClawModelChannelEntity, { where: { id }, ...forUpdate(em) });
        if (!row) throw notFound(`no model channel with id ${id}`);
        const users = await em.find(NetaClawAgentEntity, { where: { modelChannelId: id }, order: { id: 'ASC' }, take: 20 });
        if (users.length > 0) {
          throw new AppError(
            400,
            'channel_in_use',
            `model channel ${id} is used by agent(s) ${users.map(a => `${a.id} ${JSON.stringify(a.name)}`).join(', ')}: ` +
              'point them at another channel first'
          );
        }
        await em.delete(NetaClawModelChannelEntity, { id });
        let next = await em.findOne(NetaClawModelChannelEntity, { where: { isDefault: true } });
        if (!next) {
          next = await em.findOne(NetaClawModelChannelEntity, { where: {}, order: { id: 'ASC' } });
          if (next) await em.update(NetaClawModelChannelEntity, { id: next.id }, { isDefault: true });
        }
        return { id, defaultChannelId: next ? next.id : null };
      })
    );
  }

  /**
   * At start: the environment's model becomes the default channel — the current default is updated
   * (its key only when `NETACLAW_MODEL_API_KEY` is set), or a channel named "default" is created.
   */
  async applyEnv(env: ModelEnv): Promise<{ action: 'created' | 'updated'; channel: ChannelView }> {
    const baseUrl = checkBaseUrl(env.baseUrl, 'NETACLAW_MODEL_BASE_URL');
    const capability = checkCapability(env.capability, 'NETACLAW_MODEL_CAPABILITY');
    if ([...env.model].length > 200) throw invalidInput('NETACLAW_MODEL must be at most 200 characters');
    const set: ChannelValues = { baseUrl, model: env.model, capability };
    if (env.apiKey !== undefined) {
      set.apiKey = checkApiKeyBytes(env.apiKey, 'NETACLAW_MODEL_API_KEY');
    }
    // under the sync lock: instances started together on one database create the default channel once
    const result = await dbWriteLock.run(() => withSyncLock(this.dataSource, 'model channel from NETACLAW_MODEL_*', () => this.applyEnvLocked(set)));
    return { action: result.action, channel: channelView(await this.mustGet(result.id)) };
  }

  private applyEnvLocked(set: ChannelValues): Promise<{ action: 'created' | 'updated'; id: number }> {
    return this.dataSource.transaction(async em => {
      const current =
        (await em.findOne(NetaClawModelChannelEntity, { where: { isDefault: true } })) ??
        (await em.findOne(NetaClawModelChannelEntity, { where: { name: 'default' } }));
      if (current) {
        await em.update(NetaClawModelChannelEntity, { isDefault: true }, { isDefault: false });
        await em.update(NetaClawModelChannelEntity, { id: current.id }, { ...set, isDefault: true });
        return { action: 'updated' as const, id: current.id };
      }
      const saved = await em.save(em.create(NetaClawModelChannelEntity, { name: 'default', apiKey: null, ...set, isDefault: true }));
      return { action: 'created' as const, id: saved.id };
    });
  }

  async defaultChannel(): Promise<NetaClawModelChannelEntity | null> {
    return this.repo.findOne({ where: { isDefault: true } });
  }

  async count(): Promise<number> {
    return this.repo.count();
  }

  /** The channel of an agent: its own (`modelChannelId`), else the default; null when there is none. */
  async forAgent(agent: { id?: number; modelChannelId?: number | null }): Promise<NetaClawModelChannelEntity | null> {
    if (agent.modelChannelId !== undefined && agent.modelChannelId !== null) {
      const own = await this.repo.findOneBy({ id: agent.modelChannelId });
      if (!own) {
        const who = agent.id !== undefined ? `agent ${agent.id}` : 'the agent';
        throw notFound(`model channel ${agent.modelChannelId} of ${who} does not exist`);
      }
      return own;
    }
    return this.defaultChannel();
  }

  /** For agent add/update: the named channel must exist. */
  async checkExists(id: number, field: string): Promise<void> {
    if (!(await this.repo.existsBy({ id }))) throw invalidInput(`${field}: no model channel with id ${id}`);
  }

  async mustGet(id: number): Promise<NetaClawModelChannelEntity> {
    const row = await this.repo.findOneBy({ id });
    if (!row) throw notFound(`no model channel with id ${id}`);
    return row;
  }

  private async checkNameFree(em: EntityManager, name: string, exceptId: number | null) {
    const other = await em.findOneBy(NetaClawModelChannelEntity, { name });
    if (other && other.id !== exceptId) throw invalidInput(`name: a model channel named ${JSON.stringify(name)} exists`);
  }
}
