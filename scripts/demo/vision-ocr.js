#!/usr/bin/env node
// The implementation of the demo's `vision_ocr` tool (catalog.json: `implementation.command`). The backend
// runs it in the shell sandbox, in the session's first workspace root, with the call's arguments as JSON
// on stdin. A stand-in for a real OCR engine: it reads the image, recognises its format and size, and
// answers in a fixed format (the same image, the same answer).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

let args;
try {
  args = JSON.parse(fs.readFileSync(0, 'utf8'));
} catch {
  fail('vision_ocr: the arguments on stdin are not JSON');
}
if (!args || typeof args.path !== 'string') fail('vision_ocr: "path" is required');
let data;
try {
  data = fs.readFileSync(path.resolve(args.path));
} catch (err) {
  fail(`vision_ocr: cannot read ${args.path}: ${err.code || err.message}`);
}
let format = 'unknown';
let size = '';
if (data.length >= 24 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
  format = 'PNG';
  size = ` ${data.readUInt32BE(16)}x${data.readUInt32BE(20)}`;
} else if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) format = 'JPEG';
else if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) format = 'GIF';
const digest = crypto.createHash('sha256').update(data).digest('hex').slice(0, 12);
process.stdout.write(`OCR ${args.path} (${format}${size}, ${data.length} bytes, sha256 ${digest}): no text recognised by the demo engine\n`);
