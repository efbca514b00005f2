#!/usr/bin/env node
/**
 * `tenant-messaging-sandbox [--port N]`: starts the sandbox on 127.0.0.1, prints each tenant's
 * base URL and API keys, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { SANDBOX_PHONES } from './phones.js';
import { startSandbox } from './server.js';

const USAGE = 'Usage: tenant-messaging-sandbox [--port N]   (default: a free port)';

async function main(): Promise<void> {
  let port = 0;
  try {
    const { values } = parseArgs({ options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    if (values.port !== undefined) {
      port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new Error(`--port must be 0..65535, got '${values.port}'`);
    }
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }

  // Handlers first: a signal that arrives while the server starts must still stop it cleanly.
  let stopSignal: string | undefined;
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  const stop = (signal: string) => {
    stopSignal = signal;
    console.log(`\n${signal}: stopping the sandbox.`);
    // No process.exit(): once closed, nothing is left to keep the process alive.
    void sandbox?.close();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  sandbox = await startSandbox({ port });
  if (stopSignal) {
    await sandbox.close();
    return;
  }
  const lines = [`Tenant Messaging sandbox listening on ${sandbox.url}`, ''];
  for (const tenant of Object.values(sandbox.tenants)) {
    lines.push(`${tenant.name} (${tenant.slug})`, `  TENANT_MESSAGING_BASE_URL=${tenant.baseUrl}`);
    for (const [role, key] of Object.entries(tenant.keys)) lines.push(`  ${role.padEnd(9)} ${key}`);
    for (const n of tenant.senderNumbers) lines.push(`  sender #${n.id} ${n.phone} (${n.status})`);
    lines.push('');
  }
  lines.push(
    `Recipients: ${SANDBOX_PHONES.reads} reads, ${SANDBOX_PHONES.neverReads} never reads, ` +
      `${SANDBOX_PHONES.neverDelivered} never delivered, ${SANDBOX_PHONES.unreachable} unreachable.`,
    'Press Ctrl-C to stop.',
  );
  console.log(lines.join('\n'));
}

// No top-level await: the package build also emits CommonJS, which has none.
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
