// The command line shared by the bench scripts run in Node (node.mjs, browser.mjs): the repository,
// `--name value` arguments, the inputs file (`--inputs`, default target/bench/inputs.json) and the
// result written to `--out` (paths relative to the repository) and printed as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

export const inputsPath = path.resolve(repo, arg('inputs', 'target/bench/inputs.json'));

/** Prints the result as JSON and writes it to `--out` when given. */
export function writeResult(result) {
  const text = JSON.stringify(result, null, 2);
  const out = arg('out');
  if (out) fs.writeFileSync(path.resolve(repo, out), text + '\n');
  console.log(text);
}
