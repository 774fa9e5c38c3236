#!/usr/bin/env node
'use strict';
// npm's `prepack` of @netaclaw/tool-policy: the package is built (scripts/build-pkg.sh of the
// repository) before it is packed, or packing stops. A checkout that was never built is built here;
// outside the repository a package without its built files is refused, never packed without them.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const here = __dirname;
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const missing = () => pkg.files.filter((f) => !fs.existsSync(path.join(here, f)));

if (missing().length > 0) {
  const build = path.join(here, '..', 'scripts', 'build-pkg.sh');
  if (process.env.NETACLAW_PREPACK_BUILD !== '0' && fs.existsSync(build)) {
    console.error(`prepack: building the package (${path.relative(process.cwd(), build) || build})`);
    const run = spawnSync(build, { stdio: 'inherit' });
    if (run.status !== 0) {
      console.error('prepack: the build failed; nothing is packed');
      process.exit(1);
    }
  }
}
const still = missing();
if (still.length > 0) {
  console.error(`prepack: the package is not built; missing: ${still.join(', ')}. Run scripts/build-pkg.sh first.`);
  process.exit(1);
}
