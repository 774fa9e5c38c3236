/**
 * What a worker's calls use of the backend, for a batch and for a session's turn alike: the operations a
 * worker runs its tools with, the main process's services its proxied tools use (memory, todos,
 * escalations, skills), and its roots held open.
 */
import { Inject, Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { assertHeldRootClear } from '../../config/backendstate';
import { NodeFileSystemOperations } from '../../runtime';
import { ShellProcessOperations } from '../../runtime';
import { NodeSearchOperations } from '../../runtime';
import type { Operations } from '../../runtime';
import { PinnedRoots, pinRoots } from '../../runtime';
import type { RuntimeEnv } from '../../runtime';
import type { MainServices } from '../../runtime';
import { EscalationService } from '../../service/escalation';
import { MemoryService } from '../../service/memory';
import { SubagentService } from '../../service/subagent';
import { TodoService } from '../../service/todo';
import { SKILLS_DIR } from '../../config/settings';

@Provide()
@Scope(ScopeEnum.Singleton)
export class WorkerServices {
  @Inject()
  store: SubagentService;

  @Inject()
  memoryService: MemoryService;

  @Inject()
  todoService: TodoService;

  @Inject()
  escalationService: EscalationService;

  /** The runtime (its sandbox runs the shells). */
  @Inject('runtimeEnv')
  runtime: RuntimeEnv;

  operations(): Operations {
    return {
      fs: new NodeFileSystemOperations(),
      search: new NodeSearchOperations(),
      process: new ShellProcessOperations(this.runtime.sandbox),
    };
  }

  /** `boundSkills`: the agent's skills (a batch reads them at its start, the main agent at each call). */
  services(todoOwner: { sessionId?: string | null; batchId?: number | null }, boundSkills: () => Promise<readonly string[]>): MainServices {
    return {
      memory: this.memoryService,
      skillsDir: SKILLS_DIR,
      boundSkills,
      todos: { set: items => this.todoService.set(todoOwner, items) },
      escalations: {
        record: async (agentId, reason) => {
          // a sub-agent's escalation belongs to its batch and to the batch's chat session, if any
          const sessionId =
            todoOwner.batchId == null ? (todoOwner.sessionId ?? null) : ((await this.store.batches.findOneBy({ id: todoOwner.batchId }))?.sessionId ?? null);
          return this.escalationService.record({ sessionId, batchId: todoOwner.batchId ?? null }, agentId, reason);
        },
      },
    };
  }
}

/**
 * The roots of a batch or a session's turn, held open once (runtime/pinned.ts), with the backend-state
 * check on where each held folder really is, and, when sandboxes run as another user, that user's access.
 */
export async function holdRoots(roots: readonly string[], runtime: RuntimeEnv): Promise<PinnedRoots> {
  const user = runtime.sandbox.sandboxUser();
  // (a sandbox run as the backend's own user keeps its groups: what the backend opened, it can read)
  return pinRoots(roots, { check: assertHeldRootClear, ...(user ? { sandboxUser: user } : {}) });
}
