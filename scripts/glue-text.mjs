// What scripts/browser-entry.mjs and scripts/node-entry.mjs both do to wasm-bindgen's web glue before
// making an entry of it: each rewrite expects the glue's text exactly as it is, and anything else stops
// the build with the script and the file named, rather than writing a half-rewritten entry.

/** Throws `<tool>: <file>: <what>`. */
export function fail(tool, file, what) {
  throw new Error(`${tool}: ${file}: ${what}`);
}

/** Replaces the one occurrence of `from`; anything else means wasm-bindgen's output changed shape. */
export function once(tool, file, text, from, to) {
  const parts = text.split(from);
  if (parts.length !== 2) fail(tool, file, `expected ${JSON.stringify(from)} once, found ${parts.length - 1}`);
  return parts.join(to);
}

/**
 * The web glue without its types comment, checked to load nothing but its `.wasm` (no import, no export
 * from another module), so that the entry made of it is one module.
 */
export function selfContained(tool, file, glue) {
  for (const [what, re] of [['an import', /^\s*import\b|\bimport\s*\(/m], ['an export from another module', /^\s*export\s.*\bfrom\s/m]]) {
    if (re.test(glue)) fail(tool, file, `has ${what}; the entry cannot be one module`);
  }
  return once(tool, file, glue, '/* @ts-self-types="./netaclaw_tool_policy.d.ts" */\n', '');
}
