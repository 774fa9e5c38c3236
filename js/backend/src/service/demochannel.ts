import { NetaClawModelChannelEntity } from '../entity/channel';
import { DEMO_MODEL } from '../config/settings';

/** The model name of the demonstration model (src/agent/demo-model.ts). */
export const DEMO_MODEL_NAME = 'netaclaw-demo';

/**
 * The channel an agent without one uses when the demonstration model is on (`NETACLAW_DEMO_MODEL=1`): never
 * stored (`id` null, a session started on it has no `channelId`), a text model, and known by identity.
 */
const DEMO_CHANNEL: NetaClawModelChannelEntity = Object.assign(new NetaClawModelChannelEntity(), {
  id: null as unknown as number,
  name: 'demonstration model',
  baseUrl: 'netaclaw:demo',
  apiKey: null,
  model: DEMO_MODEL_NAME,
  capability: 'text',
  isDefault: false,
});

/** The agent's channel, or — none configured and the demonstration model on — the demonstration model's. */
export function orDemoChannel(channel: NetaClawModelChannelEntity | null): NetaClawModelChannelEntity | null {
  return channel ?? (DEMO_MODEL ? DEMO_CHANNEL : null);
}

/** Whether a channel is the demonstration model's (the chat then runs src/agent/demo-model.ts). */
export function isDemoChannel(channel: unknown): boolean {
  return channel === DEMO_CHANNEL;
}
