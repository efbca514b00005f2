import type { Options } from 'tsup';

/**
 * The build of a bin beside the SDK: one ES module entry, `src/main.ts` to `dist/main.js`
 * (nothing requires a bin, so no CommonJS twin), what only some commands need in chunks loaded
 * when they run, and this kit bundled in (it is never published). The SDK and the bin's other
 * dependencies stay external: they are installed beside it.
 *
 * @example
 * ```ts
 * export default defineConfig(binBuild({ external: [/^zod/] }))
 * ```
 */
export function binBuild(extra: Pick<Options, 'external'> = {}): Options {
  return {
    entry: { main: 'src/main.ts' },
    format: ['esm'],
    dts: false,
    // Maps of the bin's own code: a stack trace from a user's report then names our files and
    // lines. Lines only, not a copy of the sources.
    sourcemap: true,
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
    clean: true,
    // Quiet: `npm run demo` builds first, and its story should be the first thing a user reads.
    // Errors still print; the sizes are checked by test/integration/package.test.ts.
    silent: true,
    target: 'node22',
    platform: 'node',
    splitting: true,
    removeNodeProtocol: false,
    noExternal: ['tenant-messaging-bin-kit'],
    ...extra,
  };
}
