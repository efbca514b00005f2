#!/usr/bin/env node
/** The `tenant-messaging-sandbox` bin: an alias of `tenant-messaging sandbox` (cli-main.ts). */
import { sandboxMain } from './cli-main.js';

// No top-level await: the package build also emits CommonJS, which has none.
sandboxMain(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
