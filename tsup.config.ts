import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

/**
 * p-retry (and its one dependency) is bundled, as zod is: imported with the SDK rather than loaded
 * on the first failure (real I/O a test's fake timers do not wait for), and an ES module only,
 * which jest's CommonJS runtime cannot `require`.
 */
const RETRY = ['p-retry', 'is-network-error'];

/**
 * The Cloudflare Workers build of the main entry (package.json's `workerd` condition, which
 * wrangler resolves first): the same sources, with the modules a Worker cannot use replaced by
 * their `.workerd.ts` twins, so that undici (sockets, and `node:sqlite` in its cache store) never
 * enters a Worker's bundle.
 */
const workerdBuild: Options = {
  entry: { 'workerd/index': 'src/index.ts' },
  format: ['esm'],
  dts: false,
  // No source maps: they would double the package's size for one target, and the build is plain,
  // readable JavaScript (a Worker's bundler makes the maps of its own bundle).
  sourcemap: false,
  silent: true,
  target: 'es2023',
  platform: 'node',
  splitting: true,
  removeNodeProtocol: false,
  // formdata-node is bundled here in its Node build: a Worker's bundler would pick its `browser`
  // build, which is the platform's own FormData, and that one turns the SDK's streamed media
  // part into the text "[object File]".
  noExternal: [/^zod/, 'formdata-node', ...RETRY],
  esbuildOptions(options) {
    options.define = { ...options.define, TENANT_MESSAGING_CJS: 'false' };
    // Its own folder: the main build's `clean` must not race with these chunks.
    options.chunkNames = 'workerd/chunk-[hash]';
  },
  esbuildPlugins: [
    {
      // No `node:` module is imported statically: a Worker without `nodejs_compat` (at any
      // compatibility date) cannot load one. The four the SDK uses resolve to stand-ins that take
      // the runtime's own module where `process.getBuiltinModule` gives it (src/internal/workerd);
      // any other is a build error, not a Worker that fails to start.
      name: 'workerd-builtins',
      setup(build) {
        build.onResolve({ filter: /^node:/ }, (args) => {
          const name = /^node:(stream|fs|path|diagnostics_channel)$/.exec(args.path)?.[1];
          if (name) return { path: resolve(`src/internal/workerd/node-${name.replace('_', '-')}.ts`) };
          return { errors: [{ text: `the Workers build may not import ${args.path} (from ${args.importer})` }] };
        });
      },
    },
    {
      name: 'workerd-twins',
      setup(build) {
        build.onResolve({ filter: /\/(default-transport|from-path)\.js$/ }, (args) => ({
          path: resolve(args.resolveDir, args.path.replace(/\.js$/, '.workerd.ts')),
        }));
      },
    },
  ],
};

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'sandbox/index': 'src/sandbox/index.ts',
      'webhooks/index': 'src/webhooks/index.ts',
      testing: 'src/testing.ts',
      'otel/index': 'src/otel/index.ts',
      'bullmq/index': 'src/bullmq/index.ts',
    },
    format: ['esm', 'cjs'],
    // Declarations come from `tsc` (scripts/build-types.mjs): tsup 9 needs the TypeScript compiler API, which TypeScript 7 no longer ships.
    dts: false,
    sourcemap: true,
    clean: true,
    // Quiet, as the bins' builds are (packages/bin-kit/tsup-bin.ts): errors still print.
    silent: true,
    target: 'node22',
    platform: 'node',
    // Chunks shared by the entry points (and by the lazily loaded schemas, multipart stack and
    // undici) are emitted once, so classes stay identical across entries and \`instanceof\` works.
    splitting: true,
    removeNodeProtocol: false,
    // `import.meta` is a syntax error in CommonJS. Not tsup's `shims`: they would load a shim (and
    // node:url) into a chunk the main entry shares, and the main entry also runs in browsers.
    // src/internal/runtime/peer-require.ts reads `import.meta.url` only in the ES module build.
    esbuildOptions(options, { format }) {
      // Maps of lines, not copies of the sources: a stack trace still names src/*.ts and its line
      // (node --enable-source-maps), and the package is not shipped twice (2.5 MB of the 3 MB).
      options.sourcesContent = false;
      // TENANT_MESSAGING_CJS: which build a module is in (src/internal/runtime/peer-require.ts), never guessed from the host's globals.
      options.define = { ...options.define, TENANT_MESSAGING_CJS: String(format === 'cjs') };
      if (format === 'cjs') options.define = { ...options.define, 'import.meta.url': 'undefined' };
    },
    // zod/mini is bundled into the lazily loaded schema chunk, tree-shaken to what the schemas use:
    // loading it is several times cheaper than importing zod from node_modules (README, Performance).
    noExternal: [/^zod/, ...RETRY],
    // The datastore's SQL and Lua, kept in files of their own, are bundled as text.
    loader: { '.sql': 'text', '.lua': 'text' },
  },
  workerdBuild,
]);
