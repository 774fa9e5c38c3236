// @netaclaw/tool-policy for Node as an ES module: the CommonJS entry (wasm-bindgen's nodejs glue), loaded
// with `require`, its exports named and as the default export, so that `import` and `require` in one
// process share one instance and one set of classes. The names are listed here rather than re-exported
// with `export *`, which has Node scan the glue's source for them on every import (about three times
// the load time of `require`); js/test/exports.test.mjs checks that the list is every export, no more.
import { createRequire } from 'node:module';

const api = createRequire(import.meta.url)('./node/netaclaw_tool_policy.js');

export default api;
export const {
  ToolCallChecker, ToolPolicyEngine, agentResolveInput, buildSubprocessWorkerPolicy, builtinCatalog, catalogInfo,
  checkToolCall, explainTool, fromMcpTool, getToolNamesByToolset, getToolSchema, label, labels, profileRouteDiff,
  projectRuntimePolicy, resolveTools, runtimeDiagnostic, syncCatalog, toMcpAnnotations, toolBehaviorGuidance,
  toolManifest, toolRowView, validateToolUpdate, version,
} = api;
