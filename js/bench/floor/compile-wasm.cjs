// The floor of an `import` of a WebAssembly package with a CommonJS entry: a CommonJS file that reads the
// package's `.wasm` with `fs` and compiles it, as the package's glue does before it instantiates and answers.
'use strict';
const fs = require('fs');
const path = require('path');

module.exports = new WebAssembly.Module(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'pkg', 'node', 'netaclaw_tool_policy_bg.wasm')));
