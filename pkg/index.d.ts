// Types of the CommonJS entry (`require`): wasm-bindgen's nodejs glue.
/// <reference path="./dispose.d.ts" />
export * from './node/netaclaw_tool_policy';
