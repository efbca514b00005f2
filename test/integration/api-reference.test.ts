/**
 * docs/api.md, and the options tables marked `<!-- options: Name -->` in README.md and docs/*.md,
 * are generated from the types and their TSDoc by `npm run docs:api` (scripts/api-reference.mjs).
 * This test regenerates them in memory (the script's `--json`, in a child process: TypeDoc on
 * TypeScript 6 over our own sources only, about 2 s of CPU) and compares them with the files,
 * exactly. It also holds every public option to a summary and, unless it is required, a
 * `@default`: an option added without them fails here.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Generated {
  /** What each generated file must hold: docs/api.md, and every page with a marked table. */
  files: Record<string, string>;
  /** The options without a summary or a `@default` (or required, with one). */
  gaps: string[];
}

let generated: Generated;

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/api-reference.mjs'), '--json'], {
    cwd: root,
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  generated = JSON.parse(stdout) as Generated;
}, 60_000);

describe('the API reference (docs/api.md) and the marked options tables', () => {
  it('are what `npm run docs:api` makes of the types now', () => {
    expect(Object.keys(generated.files)).toContain('docs/api.md');
    expect(Object.keys(generated.files)).toContain('README.md');
    for (const [path, content] of Object.entries(generated.files)) {
      expect
        .soft(readFileSync(join(root, path), 'utf8'), `${path} is out of date: run \`npm run docs:api\``)
        .toBe(content);
    }
  });

  it('document every public option: a summary, and a @default unless it is required', () => {
    expect(
      generated.gaps,
      'add the missing summaries and @default tags to the doc comments, then run `npm run docs:api`',
    ).toEqual([]);
  });

  it('cover the options of every public class and function that takes some', () => {
    const api = generated.files['docs/api.md'] ?? '';
    const tables = [...api.matchAll(/^#### (.+)$/gm)].map((heading) => heading[1]);
    expect(tables).toEqual(
      expect.arrayContaining([
        'ClientOptions',
        'RequestOptions',
        'SendOptions',
        'WaitForDeliveryOptions',
        'SendManyOptions',
        'ReconcileOptions',
        'TrackDeliveriesOptions',
        'MediaFromPathOptions',
        'MessagingQueueOptions',
        'EnqueueOptions',
        'UpdatesOptions',
        'MessagingWorkerOptions',
        'MessagingOutboxOptions',
        'OutboxAddOptions',
        'OutboxRelayOptions',
        'WebhookRelayOptions',
        'InstrumentOptions',
        'SandboxOptions',
        'StartSandboxOptions',
        'RelayWebhooksOptions',
        'VerifyWebhookOptions',
        'signWebhook options',
      ]),
    );
    // Nested option objects have rows of their own, and the worker's lock settings are there.
    for (const row of ['rateLimit.requestsPerSecond', 'polling.maxPerSecond', 'waitForReplicas.timeout']) {
      expect(api).toContain(`| \`${row}\` |`);
    }
    expect(api).toMatch(/\| `lockDuration` \| `number` \| `30000` \| Ms a worker's lock/);
    expect(api).toMatch(/\| `stalledInterval` \| `number` \| `30000` \| Ms between checks for jobs/);
  });
});
