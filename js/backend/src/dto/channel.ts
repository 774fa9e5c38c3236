import { Rule } from '@midwayjs/validate';
import { bool, id, nonBlank, nullable, required, text } from './rules';

/**
 * The fields of a model channel a request may set besides the required ones. `capability` has no rule
 * here: its values are the package's vocabulary, checked by the service through the package.
 */
class ChannelFields {
  capability?: unknown;

  /** At most API_KEY_MAX_CHARS (600): its encrypted form fits the column (src/config/secrets.ts). */
  @Rule(nullable(text(600)))
  apiKey?: string | null;

  @Rule(bool())
  isDefault?: boolean;
}

/** POST /admin/netaclaw/channel/add */
export class ChannelAddDTO extends ChannelFields {
  @Rule(required(nonBlank(100)))
  name: string;

  @Rule(required(nonBlank(500)))
  baseUrl: string;

  @Rule(required(nonBlank(200)))
  model: string;
}

/** POST /admin/netaclaw/channel/update: `id` and the fields to change. */
export class ChannelUpdateDTO extends ChannelFields {
  @Rule(required(id()))
  id: number | string;

  @Rule(nonBlank(100))
  name?: string;

  @Rule(nonBlank(500))
  baseUrl?: string;

  @Rule(nonBlank(200))
  model?: string;
}

/** POST /admin/netaclaw/channel/delete */
export class IdDTO {
  @Rule(required(id()))
  id: number | string;
}
