// Loads the package (CommonJS build) while watching the wasm instances it creates: the glue keeps its
// instance private, and the soak and hostile-input tests read its memory and externref table.
import { createRequire } from 'node:module';

/** The exports of every wasm instance created while the package loaded (one, normally). */
export const captured = [];

const OriginalInstance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(OriginalInstance, {
  construct(target, args, newTarget) {
    const instance = Reflect.construct(target, args, newTarget);
    captured.push(instance.exports);
    return instance;
  },
});
/** The package, as `require('@netaclaw/tool-policy')` gives it. */
export const policy = createRequire(import.meta.url)('@netaclaw/tool-policy');
WebAssembly.Instance = OriginalInstance;
