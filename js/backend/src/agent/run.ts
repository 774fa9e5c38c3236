/**
 * Preparing a run (docs/runtime.md "Preparing a run"): the one path from an agent and a session to what a
 * run of it is made of — its model channel, the package's diagnostic (resolution, the worker's policy,
 * the routes, the tools offered), the backend-state check of its roots, and the layered system prompt.
 * The chat turn, a sub-agent's or crew member's batch, an admin run, the prompt preview and the
 * diagnostic endpoint all call `prepareRun`, so what a page shows is what a run gets.
 */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import type { ToolRuntimeRoute } from '@netaclaw/tool-policy';
import { assertRootsClear } from '../config/backendstate';
import { DiagnosticDTO, PreviewPromptDTO } from '../dto/session';
import { NetaClawModelChannelEntity } from '../entity/channel';
import { Capability, CrewRole, DiagnosticInput, policy, ResolveInput, RuntimeDiagnostic, WorkerPolicy } from '../wire/policy';
import type { WorkerPolicyWire } from '../runtime';
import type { RuntimeEnv } from '../runtime';
import { AgentService, AgentView, SessionFields, sessionFields } from '../service/agent';
import { CatalogService } from '../service/catalog';
import { ChannelService, channelView } from '../service/channel';
import { isDemoChannel, orDemoChannel } from '../service/demochannel';
import { ToolService } from '../service/tool';
import { Obj } from '../wire/validate';
import { BuiltPrompt, buildSystemPrompt } from './prompt';
import { skillSummaries } from './skills';

/** Who makes a run's calls. */
export type RunDriver = 'model' | 'calls';

/** How a run of an agent is made (every option is the caller's to give; absent: the agent's own chat run). */
export interface RunOptions {
  /**
   * The crew role it runs as (a batch's: `sub` for a delegated task or an admin run); absent: the
   * agent's own (the package reads it from the agent).
   */
  role?: CrewRole;
  /** The policy of the run that delegated it: its policy never exceeds it, and its prompt says it was delegated. */
  parent?: WorkerPolicy | null;
  /**
   * A batch's tools (a `delegate_task`'s `tools`, an admin run's `subagentTools`; null: none asked for),
   * taken within the agent's own `subagentTools` (`subagentSelection`). Absent: not a batch (the session's
   * own `subagentTools`, if any, are the package's to read, as the diagnostic endpoint passes them).
   */
  selection?: string[] | null;
  /**
   * Who makes its calls: a model (the default), which is offered only what can run here — without a usable
   * shell sandbox the run is derived without shell (`runnableSession`) — or a list of given calls (an admin
   * run: nothing is offered, and a shell call is tried and denied with the sandbox's own reason).
   */
  driver?: RunDriver;
  /** The agent's model channel, when the caller has read it already (the chat turn checks there is one first). */
  channel?: NetaClawModelChannelEntity | null;
}

/** What a run of an agent is made of. */
export interface PreparedRun {
  agent: AgentView;
  /** The session as given (the stored session's own fields: `runnableSession` is applied to the diagnostic only). */
  session: SessionFields;
  channel: NetaClawModelChannelEntity | null;
  /** The package's answer: resolution, the worker's policy, the routes, the tools offered. */
  diagnostic: RuntimeDiagnostic;
  /** The system prompt: layer 4 names exactly the tools offered. */
  prompt: BuiltPrompt;
}

/** The worker's policy of a run, as the runtime's protocol carries it. */
export function runPolicy(run: PreparedRun): WorkerPolicyWire {
  const p = run.diagnostic.policy;
  return { workspaceRoots: p.workspaceRoots, allowShell: p.allowShell, readonly: p.readonly };
}

/** The routes of every catalog tool in a run's worker (the package's). */
export function runRoutes(run: PreparedRun): ToolRuntimeRoute[] {
  return run.diagnostic.routes;
}

/**
 * The session as a run is derived from it. With no usable shell sandbox here (`shellsRun`: the runtime's sandbox runs no shells),
 * every shell command would be denied `shell_sandbox_unavailable`: the package is told `shellPermitted:
 * false`, so its policy has `allowShell` false and the tools that need a shell (`bash`, `execute_skill`,
 * whatever the manifests say) are not offered; a page reads why in the diagnostic. The session keeps its
 * own field (a backend started later with a sandbox runs its shell tools).
 */
export function runnableSession<T extends SessionFields>(session: T, shellsRun: boolean): T {
  return session.shellPermitted && !shellsRun ? { ...session, shellPermitted: false } : session;
}

/**
 * The selection of a sub-agent batch of `agent` (RUNTIME §5): the tools the batch asks for (a
 * `delegate_task`'s `tools`, a console run's `subagentTools`) within the agent's own `subagentTools`
 * when both are given, else whichever is; null = every tool the agent gets. The one place the agent's
 * selection is applied; the package then intersects it with what the agent gets.
 */
export function subagentSelection(agent: AgentView, requested: string[] | null | undefined): string[] | null {
  const own = agent.subagentTools;
  if (requested === undefined || requested === null) return own;
  if (own === null) return requested;
  const allowed = new Set(own);
  return requested.filter(name => allowed.has(name));
}

@Provide()
@Scope(ScopeEnum.Singleton)
export class RunPreparer {
  @Inject()
  agentService: AgentService;

  /** The runtime (its sandbox says whether shells run here). */
  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  @Inject()
  channelService: ChannelService;

  @Inject()
  catalogService: CatalogService;

  @Inject()
  toolService: ToolService;

  /**
   * docs/backend-api.md "How an agent becomes a resolver input": the package's `agentResolveInput` maps the
   * agent and its model channel (its own, else the default: the channel's capability wins), plus the
   * merged catalog and the table's rows. The one place the backend does this.
   */
  private async resolverInput(agent: AgentView, channel: NetaClawModelChannelEntity | null, role: CrewRole | undefined): Promise<ResolveInput> {
    const mapped = policy().agentResolveInput({
      agent,
      // the demonstration model stands in for a missing channel: the agent's own capability holds, as without one
      channel: channel && !isDemoChannel(channel) ? { capability: channel.capability as Capability } : null,
      ...(role !== undefined ? { crewRole: role } : {}),
    });
    return {
      catalog: this.catalogService.catalog(),
      governance: await this.toolService.governanceRows(),
      ...mapped,
    };
  }

  /**
   * Everything a run of the agent needs: its channel, resolution and routes under the session (the
   * package's `runtimeDiagnostic`), its roots checked against the backend's own state (403 before anything
   * runs or is stored), and the layered system prompt, whose layer 4 names the tools offered (the
   * package's `offered`), not every resolved one.
   */
  async prepareRun(agent: AgentView, session: SessionFields, opts: RunOptions = {}): Promise<PreparedRun> {
    const channel = opts.channel !== undefined ? opts.channel : await this.channelService.forAgent(agent);
    const given = opts.driver === 'calls' ? session : runnableSession(session, this.runtime.sandbox.runsShells);
    const input: DiagnosticInput = { ...(await this.resolverInput(agent, channel, opts.role)), ...given };
    if (opts.selection !== undefined) input.subagentTools = subagentSelection(agent, opts.selection);
    if (opts.parent !== undefined) input.parent = opts.parent;
    const diagnostic = policy().runtimeDiagnostic(input);
    await assertRootsClear(diagnostic.policy.workspaceRoots);
    // its crew, when it may hand them a task (the prompt names them only then)
    const crew = diagnostic.offered.includes('delegate_task') ? await this.agentService.crewOf(agent) : [];
    const prompt = buildSystemPrompt({
      agent,
      delegated: opts.parent !== undefined && opts.parent !== null,
      sessionCwd: session.sessionCwd ?? null,
      policy: diagnostic.policy,
      // Layer 4 names exactly the tools the model is offered
      toolNames: diagnostic.offered,
      toolPromptHints: diagnostic.resolved.toolPromptHints,
      crew: crew.map(m => ({ name: m.name ?? '', instructions: m.systemPrompt })),
      skills: await skillSummaries(agent.skills),
      builtinToolNames: diagnostic.resolved.builtinToolNames,
    });
    return { agent, session, channel, diagnostic, prompt };
  }

  /** POST /agent/previewPrompt: the prompt of a chat with the agent (stored or a draft), and what it was made from. */
  async previewPrompt(body: PreviewPromptDTO) {
    const agent = await this.agentService.agentFromRequest(body as Obj, 'id', false);
    // the session of a chat with this agent (subagentTools belong to the diagnostic, not to a chat)
    const { subagentTools: _sub, ...session } = sessionFields(body);
    // the channel a chat with the agent uses: with none configured, the demonstration model when it is on
    const { channel, diagnostic, prompt } = await this.prepareRun(agent, session, { channel: orDemoChannel(await this.channelService.forAgent(agent)) });
    const resolved = diagnostic.resolved;
    return {
      layers: prompt.layers,
      systemPrompt: prompt.systemPrompt,
      toolNames: resolved.toolNames,
      builtinToolNames: resolved.builtinToolNames,
      toolPromptHints: resolved.toolPromptHints,
      disabledReasons: resolved.disabledReasons,
      warnings: resolved.warnings,
      modelCapability: resolved.modelCapability,
      channel: channel && !isDemoChannel(channel) ? channelView(channel) : null,
      /** The chat converses with the demonstration model (no channel configured, NETACLAW_DEMO_MODEL=1). */
      demoModel: isDemoChannel(channel),
    };
  }

  /** POST /tool/diagnostic: the package's diagnostic of a run of the agent (stored, a draft, or every default) under the session. */
  async diagnostic(body: DiagnosticDTO): Promise<RuntimeDiagnostic> {
    const agent = await this.agentService.agentFromRequest(body as Obj, 'agentId', true);
    return (await this.prepareRun(agent, sessionFields(body))).diagnostic;
  }
}
