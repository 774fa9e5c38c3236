import { Rule } from '@midwayjs/validate';
import { bool, id, nonBlank, nullable, required, text } from './rules';

/**
 * The fields of an MCP server a request may set besides `name`. `args`, `env` and `workspaceRoots` have
 * no rule here: their shapes (a list of strings, an object of strings, a list of absolute paths) are
 * checked by the service, which names the field.
 */
class McpFields {
  @Rule(nonBlank(10))
  transport?: string;

  @Rule(nullable(text(1000)))
  command?: string | null;

  @Rule(nullable(text(1000)))
  url?: string | null;

  @Rule(bool())
  enabled?: boolean;

  args?: unknown;
  env?: unknown;
  workspaceRoots?: unknown;
  pathMarks?: unknown;
}

/** POST /admin/netaclaw/mcp/add */
export class McpAddDTO extends McpFields {
  @Rule(required(nonBlank(50)))
  name: string;

  @Rule(required(nonBlank(10)))
  transport: string;
}

/** POST /admin/netaclaw/mcp/update: `id` and the fields to change. */
export class McpUpdateDTO extends McpFields {
  @Rule(required(id()))
  id: number | string;

  @Rule(nonBlank(50))
  name?: string;
}
