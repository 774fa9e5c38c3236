// @netaclaw/tool-policy for browsers and bundlers: wasm-bindgen's web glue, instantiated once here
// (top-level await; the glue fetches ./web/netaclaw_tool_policy_bg.wasm through
// `new URL(…, import.meta.url)`, which bundlers emit as an asset), and its exports.
import init from './web/netaclaw_tool_policy.js';

await init();

export * from './web/netaclaw_tool_policy.js';
