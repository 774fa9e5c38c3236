import { Rule } from '@midwayjs/validate';
import { bool, id, nullable, str, stringList, text } from './rules';

/**
 * The session of a chat: its working directory (at most 1000 characters), workspace roots and
 * permissions — their shape only; what a path may be is the package's rule.
 */
export class ChatSessionDTO {
  @Rule(nullable(text(1000)))
  sessionCwd?: string | null;

  @Rule(nullable(stringList()))
  workspaceRoots?: string[] | null;

  @Rule(bool())
  shellPermitted?: boolean;

  @Rule(bool())
  writePermitted?: boolean;
}

/**
 * The session fields of a request that resolves an agent for a run (previewPrompt, diagnostic, a
 * sub-agent batch): a chat's session and the tools its sub-agents may use.
 */
export class SessionFieldsDTO extends ChatSessionDTO {
  @Rule(nullable(stringList()))
  subagentTools?: string[] | null;
}

/**
 * POST /admin/netaclaw/agent/previewPrompt: the stored agent `id` or a draft `agent` (checked as
 * `AgentFieldsDTO` by the service), and the session of a chat with it.
 */
export class PreviewPromptDTO extends SessionFieldsDTO {
  @Rule(nullable(id()))
  id?: number | string | null;

  agent?: unknown;
}

/**
 * POST /admin/netaclaw/tool/diagnostic: the stored agent `agentId` or a draft `agent`, and the session
 * (nothing is stored: `sessionCwd` has no length limit of its own).
 */
export class DiagnosticDTO extends SessionFieldsDTO {
  @Rule(nullable(id()))
  agentId?: number | string | null;

  agent?: unknown;

  @Rule(nullable(str()))
  sessionCwd?: string | null;
}
