/**
 * The prompt builder (seed 001 Task 10): the system prompt in four layers. The executor and
 * `POST /admin/netaclaw/agent/previewPrompt` both call `buildSystemPrompt`, so the preview is byte for
 * byte the system message the model receives. Layer 4 is the package's `toolBehaviorGuidance`.
 */
import { policy, WorkerPolicy } from '../wire/policy';
import type { SkillSummary } from './skills';

export type PromptLayerKey = 'identity' | 'session' | 'skills' | 'tools';

export interface PromptLayer {
  key: PromptLayerKey;
  title: string;
  content: string;
}

export interface PromptInput {
  agent: { name: string | null; systemPrompt: string | null; skills: string[] };
  /** A sub-agent started by `delegate_task` / `delegate_parallel` is told it runs one delegated task. */
  delegated: boolean;
  /** The session as given (cwd) and as the package made it (normalized roots, shell, readonly). */
  sessionCwd: string | null;
  policy: WorkerPolicy;
  /** The tools offered, in order, and the table's prompt hints. */
  toolNames: string[];
  /** Its bound skills with their descriptions (`skillSummaries`); without them, the names of `agent.skills`. */
  skills?: SkillSummary[];
  /** The builtin tools a skill may use (the package's `builtinToolNames`). */
  builtinToolNames?: string[];
  /** The agents of its crew, when it may delegate to them (`delegate_task` offered): name and what they do. */
  crew?: { name: string; instructions: string | null }[];
  toolPromptHints: Record<string, string>;
}

export interface BuiltPrompt {
  layers: PromptLayer[];
  /** The non-empty layers joined by a blank line: the system message. */
  systemPrompt: string;
}

function identityLayer(input: PromptInput): string {
  const lines: string[] = [];
  const name = input.agent.name?.trim();
  if (name) lines.push(`Your name is ${name}.`);
  if (input.delegated) {
    lines.push('You are a sub-agent: you were delegated one task. Do it with the tools you have and answer with its result.');
  }
  const instructions = input.agent.systemPrompt ?? '';
  if (instructions.trim() !== '') lines.push(instructions);
  const crew = input.toolNames.includes('delegate_task') ? (input.crew ?? []) : [];
  if (crew.length > 0) {
    lines.push('Your crew: give a task to one of these agents with delegate_task and its name as `agent`.');
    for (const m of crew) {
      const about = [...(m.instructions ?? '').trim().split('\n')[0]].slice(0, 200).join('');
      lines.push(about ? `- ${m.name}: ${about}` : `- ${m.name}`);
    }
  }
  return lines.join('\n');
}

function sessionLayer(input: PromptInput): string {
  const roots = input.policy.workspaceRoots;
  const lines = ['Session:'];
  if (input.sessionCwd !== null && roots.length > 0) lines.push(`- working directory: ${roots[0]}`);
  lines.push(roots.length > 0 ? `- workspace roots: ${roots.join(', ')} (relative paths resolve against ${roots[0]})` : '- workspace: none');
  lines.push(`- shell commands: ${input.policy.allowShell ? 'allowed' : 'not allowed'}`);
  lines.push(`- file writes: ${input.policy.readonly ? 'not allowed (read-only)' : 'allowed'}`);
  return lines.join('\n');
}

function skillsLayer(input: PromptInput): string {
  const skills = input.skills ?? input.agent.skills.filter(s => s.trim() !== '').map(name => ({ name, description: null }));
  if (skills.length === 0) return '';
  const lines = ['Skills bound to you (read a skill with read_skill before you follow it):'];
  for (const s of skills) lines.push(s.description ? `- ${s.name}: ${s.description}` : `- ${s.name}`);
  const tools = input.builtinToolNames ?? [];
  if (tools.length > 0) lines.push(`Builtin tools a skill may use: ${tools.join(', ')}`);
  return lines.join('\n');
}

export function buildSystemPrompt(input: PromptInput): BuiltPrompt {
  const layers: PromptLayer[] = [
    { key: 'identity', title: 'Identity', content: identityLayer(input) },
    { key: 'session', title: 'Session', content: sessionLayer(input) },
    { key: 'skills', title: 'Skills', content: skillsLayer(input) },
    {
      key: 'tools',
      title: 'Tool guidance',
      content: policy().toolBehaviorGuidance(input.toolNames, input.toolPromptHints),
    },
  ];
  const systemPrompt = layers
    .map(l => l.content)
    .filter(c => c !== '')
    .join('\n\n');
  return { layers, systemPrompt };
}
