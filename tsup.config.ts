import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'sandbox/index': 'src/sandbox/index.ts',
    'sandbox/cli': 'src/sandbox/cli.ts',
    testing: 'src/testing.ts',
  },
  format: ['esm', 'cjs'],
  // Declarations come from `tsc` (scripts/build-types.mjs): tsup 9 needs the TypeScript compiler API, which TypeScript 7 no longer ships.
  dts: false,
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
  // Chunks shared by the entry points (and by the lazily loaded schemas, multipart stack and
  // undici) are emitted once, so classes stay identical across entries and \`instanceof\` works.
  splitting: true,
  removeNodeProtocol: false,
  // zod/mini is bundled into the lazily loaded schema chunk, tree-shaken to what the schemas use:
  // loading it costs about 5 ms, where importing zod from node_modules costs about 55 ms.
  noExternal: [/^zod/],
});
