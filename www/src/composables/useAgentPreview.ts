// The agent-edit page's preview, computed in the browser with the package from the same input the
// backend builds: what the agent gets once saved (resolution, the tool-guidance layer, the static
// profile of every tool) and, only for a session the admin names, that session's dynamic routes.
import { computed, type Ref } from 'vue';
import {
  previewAgent,
  sessionRoutes,
  type AgentPreview,
  type Channel,
  type SessionRoutes,
  type SubagentBatch,
  type ToolManifest,
  type ToolRuntimeRoute,
  type ToolSchema,
} from '../server/policy';
import { errorField, policyError, policyErrorParts } from '../server/errors';
import type { AgentInput, ToolRow } from '../base/types';

/** A session the admin names on the edit page (cwd, extra roots, permissions). */
export interface SessionForm {
  named: boolean;
  sessionCwd: string;
  workspaceRoots: string[];
  shellPermitted: boolean;
  writePermitted: boolean;
}

export interface ProfileRow {
  profile: ToolManifest;
  /** Injected for this agent, or the resolver's reason for dropping it. */
  injected: boolean;
  dropReason: string | null;
  /** The strategy of the tool's governance row. */
  strategy: ToolRuntimeRoute['strategy'];
}

/** A result of the package, or its refusal: the page's sentence, and the input field it names (if any). */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: string; field: string | null };

function attempt<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, error: policyError(e), field: errorField(policyErrorParts(e)) };
  }
}

export function useAgentPreview(
  draft: () => AgentInput & { subagentTools?: string[] | null },
  governance: Ref<ToolRow[]>,
  catalog: Ref<ToolSchema[] | null>,
  channel: Ref<Channel | null>,
  session: SessionForm,
  /** False while the agent and the rows are loading: no preview of a half-loaded form. */
  ready: Ref<boolean>,
) {
  /** The sub-agent selection of the agent, as every diagnostic of the page takes it. */
  const selection = (): SubagentBatch => {
    const tools = draft().subagentTools;
    return tools === undefined ? {} : { subagentTools: tools };
  };

  const preview = computed<Outcome<AgentPreview> | null>(() => {
    const c = catalog.value;
    if (!c || !ready.value) return null;
    return attempt(() => previewAgent(draft(), governance.value, c, channel.value, selection()));
  });

  const profileRows = computed<ProfileRow[]>(() => {
    const p = preview.value;
    if (!p || !p.ok) return [];
    const { resolved, diagnostic } = p.value;
    const injected = new Set(resolved.toolNames);
    const dropped = new Map(resolved.disabledReasons.map((d) => [d.name, d.reason]));
    return diagnostic.profiles.map((profile, i) => ({
      profile,
      injected: injected.has(profile.name),
      dropReason: dropped.get(profile.name) ?? null,
      strategy: diagnostic.routes[i].strategy,
    }));
  });

  /**
   * The input of the named session (empty fields absent): the main agent's own, as the chat computes its
   * routes (docs/backend-api.md, POST /tool/diagnostic). The agent's sub-agent selection is not part of it:
   * it narrows only the batches the agent delegates to.
   */
  function sessionInput(): SubagentBatch {
    return {
      sessionCwd: session.sessionCwd.trim() || null,
      workspaceRoots: session.workspaceRoots.map((r) => r.trim()).filter((r) => r !== ''),
      shellPermitted: session.shellPermitted,
      writePermitted: session.writePermitted,
    };
  }

  const routes = computed<Outcome<SessionRoutes> | null>(() => {
    const c = catalog.value;
    if (!c || !ready.value || !session.named) return null;
    return attempt(() => sessionRoutes(draft(), governance.value, c, channel.value, sessionInput()));
  });

  return { preview, profileRows, routes, selection, sessionInput };
}
