import { binBuild } from 'tenant-messaging-bin-kit/tsup';
import { defineConfig } from 'tsup';

/**
 * The `tenant-messaging-mcp` bin. What only serving needs (the credentials, the client, the MCP
 * server and the MCP SDK) is in chunks loaded once the command line is known good, so `--help`,
 * `--version` and a bad flag answer at once. The MCP SDK and zod stay external, as dependencies.
 */
export default defineConfig(
  binBuild({ external: ['tenant-messaging', /^tenant-messaging\//, /^@modelcontextprotocol\/sdk/, /^zod/] }),
);
