/**
 * What the send-many test files share: the built bin run against a sandbox's tenant to its end
 * (a signal sent at a moment the test chooses), a campaign file with a refused row every 97, how
 * many times the sandbox stored each row, and a folder for the files. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll } from 'vitest';
import { spawnBin } from '../../../bin-kit/test/integration/bin-process.js';
import type { SendManySummary } from '../../src/commands/send-many-summary.js';

/** The built bin. */
export const bin = join(import.meta.dirname, '../../dist/main.js');
export const ROWS = 1_000;
/** The sandbox's tenant, with room for every row (its default message limit is lower). */
export const tenants = [{ slug: 'acme', messageLimit: 10_000, senderNumbers: [{ phone: '+15550001001' }] }];
/** Every 97th row has an empty text: refused by the CLI's checks, never sent. */
export const invalid = (i: number) => i % 97 === 13;
export const FROM = ['--from', '+15550001001'];

/** A folder for this file's CSVs, made before its tests and removed after: call at the top level. */
export function tempFolder(): () => string {
  let dir = '';
  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
    dir = await mkdtemp(join(tmpdir(), 'tm-send-many-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** A CSV of `rows` rows in `dir`, with a quoted comma in every text so the writing back is tested too. */
export async function campaign(dir: string, name: string, rows = ROWS): Promise<{ path: string; lines: string[] }> {
  const lines = ['to,text'];
  for (let i = 0; i < rows; i++) lines.push(`${SANDBOX_PHONES.reads},"${invalid(i) ? '' : `Row ${i}, hello`}"`);
  const path = join(dir, name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return { path, lines };
}

/** What send-many prints with --json: its own summary's type. */
export type Summary = SendManySummary;

export interface Ran {
  code: number | null;
  /** The signal that killed the process, if one did (a signal before the bin's handlers). */
  killedBy: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON, with --json. */
  summary: Summary;
}

/**
 * Runs the bin to its end. `signalWhen`, polled every `pollMs`, sends its signal once it holds (a
 * moment the test chooses by what the sandbox stored or the process shows, never by the clock: how long a
 * loaded machine takes to load the bin is not known).
 */
export async function run(
  sandbox: RunningSandbox,
  args: string[],
  signalWhen?: { signal: NodeJS.Signals; when: (child: ChildProcess, stderr: string) => boolean; pollMs?: number },
): Promise<Ran> {
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  const env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full, NO_COLOR: '1' };
  const running = spawnBin(bin, args, env, 'ignore');
  const watch =
    signalWhen &&
    setInterval(() => {
      if (!signalWhen.when(running.child, running.stderr())) return;
      clearInterval(watch);
      running.child.kill(signalWhen.signal);
    }, signalWhen.pollMs ?? 20);
  const code = await running.exit;
  clearInterval(watch);
  const stdout = running.stdout();
  let summary: Summary;
  try {
    summary = JSON.parse(stdout) as Summary;
  } catch {
    summary = undefined as unknown as Summary;
  }
  return { code, killedBy: running.killedBy(), stdout, stderr: running.stderr(), summary };
}

/** How many times the sandbox stored each row's text. */
export function storedByRow(sandbox: RunningSandbox): Map<number, number> {
  const counts = new Map<number, number>();
  for (const log of sandbox.messages('acme')) {
    const row = /^Row (\d+), hello$/.exec(log.content ?? '')?.[1];
    if (row !== undefined) counts.set(Number(row), (counts.get(Number(row)) ?? 0) + 1);
  }
  return counts;
}

/** How many sends reached the sandbox (accepted `POST /messages`, stored or refused by it). */
export const posts = (sandbox: RunningSandbox) =>
  sandbox.requestLog.acceptedAt({ tenant: 'acme', route: 'POST /messages' }).length;

/** The row index of each line the sandbox stored, with its log id. */
export function storedIds(sandbox: RunningSandbox): Map<number, number[]> {
  const ids = new Map<number, number[]>();
  for (const log of sandbox.messages('acme')) {
    const row = /^Row (\d+), hello$/.exec(log.content ?? '')?.[1];
    if (row !== undefined) ids.set(Number(row), [...(ids.get(Number(row)) ?? []), log.id]);
  }
  return ids;
}

/** The rows sent, by index, with their log ids, as a journal (`<file>.sent.ndjson`) lists them; its marks left out. */
export function journalOf(path: string): Map<number, number[]> {
  const sent = new Map<number, number[]>();
  if (!existsSync(path)) return sent;
  for (const line of readFileSync(path, 'utf8').split('\n').filter(Boolean)) {
    const entry = JSON.parse(line) as { line?: number; id?: number };
    if (entry.line === undefined || entry.id === undefined) continue;
    // Row i of campaign() is on line i + 2 (after the header).
    sent.set(entry.line - 2, [...(sent.get(entry.line - 2) ?? []), entry.id]);
  }
  return sent;
}

/** The rows (by index; -1 for one without a text) a CSV of rows written back holds. */
export function rowsOf(path: string): number[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => Number(/Row (\d+), hello/.exec(line)?.[1] ?? -1));
}
