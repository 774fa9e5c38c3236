// The floor of a CommonJS file loaded from an ES module (floor/require-hop.mjs): nothing in it.
'use strict';
