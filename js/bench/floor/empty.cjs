// The floor of an `import` of a CommonJS entry (the package's and Cedar's both are): an empty CommonJS
// file, imported as the package's entry is.
'use strict';
