// Types of the Node entries (`require`: wasm-bindgen's nodejs glue; `import`: index.cjs, the same module).
/// <reference path="./dispose.d.ts" />
export * from './node/netaclaw_tool_policy';
