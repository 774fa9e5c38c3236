// @netaclaw/tool-policy for Node as an ES module: the exports of the CommonJS entry (wasm-bindgen's
// nodejs glue), named and as the default export, so that `import` and `require` in one process share
// one instance and one set of classes.
export * from './node/netaclaw_tool_policy.js';
export { default } from './node/netaclaw_tool_policy.js';
