import * as fs from 'fs';
import { errorMessage } from '../lib/errortext';

/**
 * The JSON array a start-up file holds (`NETACLAW_CATALOG_FILE`, `NETACLAW_SEED_FILE`). `fail(detail)` makes
 * the error that names the file: unreadable, not JSON, or not an array (`what` says what it should hold).
 */
export function readJsonArray(file: string, what: string, fail: (detail: string) => Error): unknown[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw fail(`cannot be read (${errorMessage(err)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw fail(`is not valid JSON (${errorMessage(err)})`);
  }
  if (!Array.isArray(parsed)) throw fail(`must hold a JSON array of ${what}`);
  return parsed;
}
