'use strict';
// Entry point: `npm start` compiles src/ to dist/ (prestart) and runs this file.
const path = require('path');
const { Bootstrap } = require('@midwayjs/bootstrap');

Bootstrap.configure({
  appDir: __dirname,
  baseDir: path.join(__dirname, 'dist'),
}).run();
