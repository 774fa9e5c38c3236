// The floor of any `import` of a WebAssembly package: an ES module that reads the package's `.wasm` with
// `fs` and compiles it, as the package's ES entry does before it instantiates and answers.
const fs = process.getBuiltinModule?.('node:fs') ?? (await import('node:fs'));

export default new WebAssembly.Module(fs.readFileSync(new URL('../../../pkg/web/netaclaw_tool_policy_bg.wasm', import.meta.url)));
