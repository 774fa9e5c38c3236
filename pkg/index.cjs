// @netaclaw/tool-policy for Node's `import`: the CommonJS entry (wasm-bindgen's nodejs glue) itself, so
// that `import` and `require` in one process share one instance and one set of classes, and the default
// export is what `require` answers. Node imports a CommonJS file without the ES module loader's
// asynchronous file reading (about 4 ms of a cold `import` of an ES module entry on Node 20) and finds
// its named exports with cjs-module-lexer, which reads them from the object literal below: an
// assignment that never runs (`0 &&`), the form the lexer documents for naming a module's exports.
// Listing them here keeps the lexer from reading the whole glue for them; js/test/exports.test.mjs
// checks that the list is every export of the glue, no more.
'use strict';
const api = require('./node/netaclaw_tool_policy.js');
module.exports = api;
0 && (module.exports = {
  ToolCallChecker, ToolPolicyEngine, agentResolveInput, buildSubprocessWorkerPolicy, builtinCatalog, catalogInfo,
  checkToolCall, explainTool, fromMcpTool, getToolNamesByToolset, getToolSchema, label, labels, profileRouteDiff,
  projectRuntimePolicy, resolveTools, runtimeDiagnostic, syncCatalog, toMcpAnnotations, toolBehaviorGuidance,
  toolManifest, toolRowView, validateToolUpdate, version,
});
