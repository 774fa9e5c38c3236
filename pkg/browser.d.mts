// Types of the browser and bundler entry (pkg/browser.mjs): wasm-bindgen's web glue, instantiated.
/// <reference path="./dispose.d.ts" />
export * from './web/netaclaw_tool_policy.js';
