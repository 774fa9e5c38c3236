// The model channels (POST /channel/page), loaded once for the whole app, and the channel an agent
// runs on: its own (`modelChannelId`), else the default one — the backend's rule (docs/backend-api.md),
// so that a preview takes the capability the runtime will take.
import { api } from '../server/api';
import type { AgentInput, ChannelView } from '../base/types';
import { shared } from './shared';

const store = shared<ChannelView[]>(async () => (await api.channel.page({ page: 1, size: 1000 })).list);

/** The channel `agent` runs on, among those loaded (null: none configured, or not loaded yet). */
export function channelFor(agent: Pick<Partial<AgentInput>, 'modelChannelId'>, list: ChannelView[] | null = store.value.value): ChannelView | null {
  if (!list) return null;
  if (agent.modelChannelId != null) return list.find((c) => c.id === agent.modelChannelId) ?? null;
  return list.find((c) => c.isDefault) ?? null;
}

export function useChannels() {
  if (!store.value.value) void store.load();
  return { channels: store.value, error: store.error, ready: store.load };
}
