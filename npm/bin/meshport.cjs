#!/usr/bin/env node
// `meshport` for Node.js 18+: the CLI compiled to WebAssembly (scripts/build-wasm.sh), with the real
// file system. Its arguments are this script's (process.argv), its exit status the process's.
'use strict';
require('../dist/meshport-cli.cjs');
