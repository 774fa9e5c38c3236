// The floor of the package's ES entry: an ES module that loads a CommonJS file through `createRequire`,
// as pkg/index.mjs loads the Node glue, with nothing in either.
import { createRequire } from 'node:module';

export default createRequire(import.meta.url)('./empty.cjs');
