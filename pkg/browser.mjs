// Browser and bundler entry: instantiates the module once (top-level await), then exports the API.
// Bundlers such as Vite pick up the .wasm through `new URL(..., import.meta.url)`; no plugin is needed.
import init from './web/netaclaw_tool_policy.js';

await init();

export * from './web/netaclaw_tool_policy.js';
