/**
 * Images and audio of tool results (an MCP server's `image` / `audio` parts), for the model. A `tool`
 * message of the OpenAI-compatible API carries text only, so the text of a result always says what each
 * part was (`[image: image/png, 12,345 bytes]`, runtime/mcp/servers.ts); on a channel whose model sees
 * images, the images of a block of tool results follow that block as one `user` message of `image_url`
 * parts (data URLs). A channel that reads text only gets a line saying the image is not shown to it.
 * Audio is a note on every channel: the capability a channel states says nothing of audio.
 *
 * The images live for the turn that made the calls (the loop's history keeps them beside the messages);
 * the stored messages keep the notes, so a later turn reads the notes only.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Capability } from '@netaclaw/tool-policy';
import { policy } from '../wire/policy';
import type { ResultMedia } from '../runtime';

const seen = new Map<string, boolean>();

/**
 * Whether a channel's model sees images: asked of the package — would it offer a tool that needs to see
 * images (`capability: vision`) to a model of this capability (its check 4, `capability_mismatch`)?
 */
export function seesImages(capability: string | null | undefined): boolean {
  const cap = capability ?? '';
  let answer = seen.get(cap);
  if (answer === undefined) {
    try {
      const r = policy().resolveTools({
        catalog: [{ name: 'image_input_probe', toolset: 'image_input_probe', capability: 'vision' }],
        agent: { toolsets: ['image_input_probe'] },
        modelCapability: (capability ?? null) as Capability | null,
      });
      answer = r.toolNames.includes('image_input_probe');
    } catch {
      // a capability the package does not know: text only (fail closed)
      answer = false;
    }
    seen.set(cap, answer);
  }
  return answer;
}

/** What a text-only model reads after a result's notes. */
export const IMAGE_NOT_SHOWN = "[the image above is not shown to this model: its channel's model reads text only]";
export const AUDIO_NOT_PLAYED = '[the audio above is not played to this model: a channel here takes no audio]';

/**
 * The messages of a model request with the media of their tool results (`media`: by tool call id): after
 * each block of `tool` messages whose calls carried images, on a channel that sees images, one `user`
 * message naming each call and giving its images; otherwise (and for audio) a line in the result's text.
 * The list given is not changed.
 */
export function withMedia(
  messages: readonly ChatCompletionMessageParam[],
  media: ReadonlyMap<string, readonly ResultMedia[]>,
  capability: string | null | undefined
): ChatCompletionMessageParam[] {
  if (media.size === 0) return [...messages];
  const images = seesImages(capability);
  const out: ChatCompletionMessageParam[] = [];
  let parts: ChatCompletionContentPart[] = [];
  const flush = () => {
    if (parts.length === 0) return;
    out.push({ role: 'user', content: [{ type: 'text', text: 'The images returned by the tool calls above:' }, ...parts] });
    parts = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flush();
    const own = m.role === 'tool' ? media.get(m.tool_call_id) : undefined;
    if (m.role !== 'tool' || !own || own.length === 0) {
      out.push(m);
      continue;
    }
    const notes: string[] = [];
    own.forEach((item, i) => {
      if (item.type === 'image' && images) {
        parts.push({ type: 'text', text: `Image ${i + 1} of tool call ${m.tool_call_id} (${item.mimeType}):` });
        parts.push({ type: 'image_url', image_url: { url: `data:${item.mimeType};base64,${item.data}` } });
      } else {
        notes.push(item.type === 'image' ? IMAGE_NOT_SHOWN : AUDIO_NOT_PLAYED);
      }
    });
    const text = typeof m.content === 'string' ? m.content : '';
    out.push(notes.length > 0 ? { ...m, content: [text, ...new Set(notes)].join('\n') } : m);
  }
  flush();
  return out;
}
