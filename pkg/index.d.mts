// Types of the Node ES module entry (`import`, pkg/index.mjs): the CommonJS entry's exports.
/// <reference path="./dispose.d.ts" />
export * from './node/netaclaw_tool_policy.js';
