import { Rule } from '@midwayjs/validate';
import { ChatSessionDTO } from './session';
import { id, nonBlank, nullable, required } from './rules';
import { MESSAGE_MAX_CHARS } from '../wire/api-types';

export { MESSAGE_MAX_CHARS };

/**
 * A chat message (POST /api/netaclaw/chat and the WebSocket's `chat`). The session fields are the
 * session's when it starts; a request that names an existing session may repeat them, not change them
 * (the executor checks that, and the package checks the paths).
 */
export class ChatDTO extends ChatSessionDTO {
  @Rule(required(id()))
  agentId: number | string;

  @Rule(required(nonBlank(MESSAGE_MAX_CHARS)))
  message: string;

  @Rule(nullable(id()))
  sessionId?: number | string | null;
}
