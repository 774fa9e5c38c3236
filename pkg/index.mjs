// Node ES module entry: the same instance as `require('@netaclaw/tool-policy')`.
// Generated from the export table (src/edge/exports.rs) by `EXPORTS_WRITE=1 cargo test --test exports`.
import { createRequire } from 'node:module';

const policy = createRequire(import.meta.url)('./node/netaclaw_tool_policy.js');

export const {
  builtinCatalog,
  toolManifest,
  resolveTools,
  buildSubprocessWorkerPolicy,
  projectRuntimePolicy,
  runtimeDiagnostic,
  syncCatalog,
  validateToolUpdate,
  toolBehaviorGuidance,
  labels,
  label,
  version,
  explainTool,
  profileRouteDiff,
  toMcpAnnotations,
  checkToolCall,
  catalogInfo,
  getToolSchema,
  getToolNamesByToolset,
  toolRowView,
  agentResolveInput,
  fromMcpTool,
  ToolPolicyEngine,
  ToolCallChecker,
} = policy;

export default policy;
