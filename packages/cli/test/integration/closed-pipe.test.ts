/**
 * Every command that writes a stream stops quietly when stdout's reader goes away (`| head -1`):
 * exit 0, nothing on stderr, and a send already made still recorded (send-many's journal and
 * remaining file). An EPIPE was an unhandled stream error: a stack trace, exit 1. Each command
 * runs twice: with its stdout closed before it writes, and after the first line was read, as
 * `head -1` does. The built bin against the sandbox on loopback.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaign, journalOf, rowsOf, storedIds, tempFolder, tenants } from './send-many-harness.js';

const bin = join(import.meta.dirname, '../../dist/main.js');
const folder = tempFolder();
let sandbox: RunningSandbox;
let client: MessagingClient;
let env: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ tenants, delivery: { deliveredAfterMs: 50, readAfterMs: 100 } });
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full, NO_COLOR: '1' };
  client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
  await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      client.messages.send({
        sender_phone: '+15550001001',
        to_phone: SANDBOX_PHONES.reads,
        type: 'text',
        content: `Before ${i}`,
      }),
    ),
  );
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

/** The bin with `args`, its stdout closed at once or once its first line came; how it ended. */
async function closedPipe(args: string[], when: 'at once' | 'after a line', extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env, ...extra } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  if (when === 'at once') child.stdout.destroy();
  else {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk;
      if (seen.includes('\n')) child.stdout.destroy();
    });
  }
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (exitCode, killedBy) => resolve([exitCode, killedBy])),
  );
  return { code, signal, stderr };
}

const WHEN = ['at once', 'after a line'] as const;

/** `ended`, with a message sent every 200 ms meanwhile: a following command's next write comes. */
async function whileSending<T>(ended: Promise<T>): Promise<T> {
  const more = setInterval(() => {
    void client.messages
      .send({ sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content: 'Meanwhile' })
      .catch(() => undefined);
  }, 200);
  try {
    return await ended;
  } finally {
    clearInterval(more);
  }
}

describe('a stream whose reader goes away', () => {
  it.each(WHEN)('list --ndjson, its stdout closed %s: exit 0, nothing on stderr', async (when) => {
    expect(await closedPipe(['list', '--ndjson', '--limit', '30'], when)).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
  });

  it.each(WHEN)('list (a table), closed %s: exit 0, nothing on stderr', async (when) => {
    expect(await closedPipe(['list', '--limit', '30'], when)).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it.each(WHEN)('tail --ndjson, closed %s: exit 0, nothing on stderr', async (when) => {
    expect(await closedPipe(['tail', '--ndjson'], when)).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it.each(WHEN)('tail --follow, closed %s: it stops at its next line, exit 0, no summary', async (when) => {
    // Its first page is a line at once; after it, the next change is the next write.
    const ended = closedPipe(['tail', '--follow', '--interval', '100ms', '--ndjson'], when);
    expect(await whileSending(ended)).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it.each(WHEN)(
    'listen --ndjson, closed %s: it stops at its next attempt line, exit 0, only its ready line',
    async (when) => {
      // The endpoint that takes the events: every one answered 204.
      const receiver: Server = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(204).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const secret = { TENANT_MESSAGING_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}` };
      const ended = closedPipe(['listen', '--forward-to', url, '--interval', '100ms', '--ndjson'], when, secret);
      try {
        const ran = await whileSending(ended);
        expect({
          ...ran,
          stderr: ran.stderr.replace(/^Ready\. Forwarding to \S+, signed with the secret from \S+\.\n/, ''),
        }).toEqual({ code: 0, signal: null, stderr: '' });
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    },
  );

  it.each(WHEN)('send-many --ndjson, closed %s: it stops, exit 0, quiet, every send recorded', async (when) => {
    const { path } = await campaign(folder(), `pipe-${when.replace(' ', '-')}.csv`, 200);
    const before = new Set([...storedIds(sandbox).values()].flat());
    const ran = await closedPipe(
      ['send-many', '--file', path, '--from', '+15550001001', '--rate', '20/s', '--ndjson'],
      when,
    );
    expect(ran).toEqual({ code: 0, signal: null, stderr: '' });
    // What the sandbox stored of this file is what the journal lists, and the rest remains.
    const stored = new Map(
      [...storedIds(sandbox)]
        .map(([row, ids]) => [row, ids.filter((id) => !before.has(id))] as const)
        .filter(([, ids]) => ids.length > 0),
    );
    const journal = journalOf(path.replace(/\.csv$/, '.sent.ndjson'));
    expect(new Map([...journal].sort(([a], [b]) => a - b))).toEqual(new Map([...stored].sort(([a], [b]) => a - b)));
    expect(stored.size).toBeLessThan(200);
    const remaining = rowsOf(path.replace(/\.csv$/, '.remaining.csv'));
    const failed = rowsOf(path.replace(/\.csv$/, '.failed.csv'));
    expect(stored.size + remaining.length + failed.length).toBe(200);
  });
});
