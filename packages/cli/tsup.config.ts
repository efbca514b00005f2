import { defineConfig } from 'tsup';

/**
 * The `tenant-messaging` bin: one ES module entry (nothing requires it, so no CommonJS twin), its
 * commands in chunks loaded when run. The SDK and the command's libraries stay external: they are
 * this package's dependencies, installed beside it.
 */
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  dts: false,
  // Maps of the bin's own code: a stack trace from a user's report then names our files and lines.
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
  splitting: true,
  removeNodeProtocol: false,
});
