'use strict';
// Entry point: `npm start` compiles src/ to dist/ (prestart) and runs this file.
const path = require('path');
// Before anything else: output to a closed pipe never loops, and a stop never hangs (src/config/process.ts).
const { guardStdio, installStopDeadline } = require('./dist/config/process');
guardStdio();
installStopDeadline();
const { Bootstrap } = require('@midwayjs/bootstrap');
const { bootLogger } = require('./dist/config/log');

Bootstrap.configure({
  appDir: __dirname,
  baseDir: path.join(__dirname, 'dist'),
  // the bootstrap's own lines (started, a signal, an uncaught error) in the backend's log format (src/config/log.ts)
  logger: bootLogger(),
}).run();
