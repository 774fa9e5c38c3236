/**
 * The regular expressions of `grep`, matched in linear time: RE2's engine (the `re2js` package, a pure
 * JavaScript port of RE2 — no native addon, which a worker cannot load). A pattern is written as for
 * JavaScript (`RE2JS.translateRegExp` turns `\uXXXX`, `\u{…}`, `(?<name>…)` and `/` into RE2's spelling)
 * and matched like a JavaScript `RegExp` without flags: case-sensitive, `.` matches any character but a
 * newline, `^` and `$` at the ends of the line (grep reads line by line). What RE2 cannot run in linear
 * time — backreferences (`\1`, `\k<name>`), look-ahead (`(?=`, `(?!`) and look-behind (`(?<=`, `(?<!`) —
 * is refused with a message saying so; the call fails, nothing is searched.
 */
import { RE2JS } from 're2js';
import type { LineMatcher } from './operations/types';
import { ToolError } from './tools/types';
import { errorMessage } from '../lib/errortext';

const NOT_LINEAR = 'grep matches in linear time (the RE2 engine), which has no backreferences and no look-ahead or look-behind';

/** Why RE2 refused a pattern, in words, when it is one of the constructs it leaves out on purpose. */
function leftOut(pattern: string, message: string): string | null {
  if (/\(\?<?[=!]/.test(pattern) && /unsupported Perl syntax|invalid named capture/.test(message)) {
    return `the pattern uses look-ahead or look-behind, which ${NOT_LINEAR}`;
  }
  return null;
}

/**
 * Whether the pattern holds a backreference (`\1`–`\9`, `\k<name>`). Checked on the pattern as written:
 * the JavaScript translation turns an escape it does not know into the letter itself (`\k` → `k`), which
 * would silently match something else.
 */
function hasBackreference(pattern: string): boolean {
  for (let i = 0; i < pattern.length - 1; i++) {
    if (pattern[i] !== '\\') continue;
    const next = pattern[i + 1];
    if ((next >= '1' && next <= '9') || (next === 'k' && pattern[i + 2] === '<')) return true;
    i += 1; // the escaped character (`\\` included)
  }
  return false;
}

/** Compiles a grep pattern; a pattern RE2 cannot compile is a ToolError naming the reason. */
export function linePattern(pattern: string): LineMatcher {
  if (hasBackreference(pattern)) throw new ToolError(`the pattern uses a backreference, which ${NOT_LINEAR}`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    const message = errorMessage(err);
    const why = leftOut(pattern, message);
    throw new ToolError(why ? `${why} (${message})` : `pattern is not a valid regular expression for the linear-time engine (RE2 syntax): ${message}`);
  }
  return { test: line => re.test(line) };
}
