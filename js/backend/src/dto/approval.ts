import { Rule, RuleType } from '@midwayjs/validate';
import { id, required } from './rules';

/** The answers a user gives an approval (docs/runtime.md "Approvals"). */
const ANSWERS = ['once', 'session', 'deny'];

/** POST /api/netaclaw/approval/answer (and the chat socket's `{ type: 'approval', … }`): the approval and the answer. */
export class ApprovalAnswerDTO {
  @Rule(required(id()))
  id: number | string;

  @Rule(required(RuleType.string().valid(...ANSWERS)))
  answer: 'once' | 'session' | 'deny';
}
