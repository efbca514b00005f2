import { defineConfig } from 'tsup';

/**
 * The `tenant-messaging-mcp` bin: one ES module entry (nothing requires it, so no CommonJS twin).
 * What only serving needs (the credentials, the client, the MCP server and the MCP SDK) is in
 * chunks loaded once the command line is known good, so `--help`, `--version` and a bad flag
 * answer at once. The SDK, the MCP SDK and zod stay external: they are this package's
 * dependencies, installed beside it.
 */
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  dts: false,
  // Maps of the server's own code: a stack trace from a user's report then names our files and lines.
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
  splitting: true,
  removeNodeProtocol: false,
  external: ['tenant-messaging', /^tenant-messaging\//, /^@modelcontextprotocol\/sdk/, /^zod/],
});
