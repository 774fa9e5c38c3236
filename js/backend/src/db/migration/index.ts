/**
 * The migrations of MySQL/MariaDB, in order (run at start under the sync lock: `datasource.ts`). Add a new
 * one at the end; never change one that has run somewhere.
 */
import { Baseline1796093269137 } from './1796093269137-Baseline';
import { McpServer1796200000000 } from './1796200000000-McpServer';
import { TodoLists1796300000000 } from './1796300000000-TodoLists';
import { Escalations1796400000000 } from './1796400000000-Escalations';
import { CrewMembers1796500000000 } from './1796500000000-CrewMembers';
import { TurnProgress1796600000000 } from './1796600000000-TurnProgress';
import { LoginSessions1796700000000 } from './1796700000000-LoginSessions';
import { Rules1796800000000 } from './1796800000000-Rules';
import { McpPathMarks1796900000000 } from './1796900000000-McpPathMarks';
import { Approvals1797000000000 } from './1797000000000-Approvals';
import { NetDecisions1797100000000 } from './1797100000000-NetDecisions';
import { CallsAndWaits1797600000000 } from './1797600000000-CallsAndWaits';

export const MIGRATIONS = [
  Baseline1796093269137,
  McpServer1796200000000,
  TodoLists1796300000000,
  Escalations1796400000000,
  CrewMembers1796500000000,
  TurnProgress1796600000000,
  LoginSessions1796700000000,
  Rules1796800000000,
  McpPathMarks1796900000000,
  Approvals1797000000000,
  NetDecisions1797100000000,
  CallsAndWaits1797600000000,
];

/** The table where TypeORM records the migrations that ran. */
export const MIGRATIONS_TABLE = 'netaclaw_migrations';
