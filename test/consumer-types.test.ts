/**
 * The published declarations against the toolchains users compile with: the packed package is
 * installed into fresh projects with the newest `typescript` and `@types/node` from the registry
 * (fetched now, so the day a new major ships is the day this test sees it) and with `@types/node`
 * 22, the engines floor. Every public entry is type-checked in each project under `strict`,
 * `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`, with no `skipLibCheck`, for ESM and
 * CommonJS (`nodenext`) and for a bundler's resolution. Needs `npm run build` first (`npm test` does).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { componentAvailable } from './helpers/components.js';
import { npm, root } from './helpers/npm.js';

const run = promisify(execFile);

/** The `@types/node` lines the matrix covers: the newest, and the floor of `engines.node`. */
const TYPES_NODE = { newest: 'latest', floor: '22' } as const;
/** The optional peers, so their entries' declarations resolve as in a user's project that uses them. */
const PEERS = ['bullmq', 'ioredis', 'pg', '@types/pg', 'msw', '@opentelemetry/api'];

/** Uses every public entry, including the README's sandbox lines that index `tenants` by slug. */
const USAGE = `import * as main from 'tenant-messaging';
import { MessagingClient, type MessageLog } from 'tenant-messaging';
import * as bullmq from 'tenant-messaging/bullmq';
import * as otel from 'tenant-messaging/otel';
import { createSandbox, startSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import * as testing from 'tenant-messaging/testing';
import * as webhooks from 'tenant-messaging/webhooks';

export const entries = [main, bullmq, otel, testing, webhooks];

export async function demo(): Promise<MessageLog> {
  const sandbox = await startSandbox();
  const { baseUrl, keys, senderNumbers } = sandbox.tenants.acme;
  const client = new MessagingClient({ baseUrl, apiKey: keys.full });
  const custom = createSandbox({ tenants: [{ slug: 'initech' }] });
  const initech: string = custom.tenants.initech.baseUrl;
  const other: string | undefined = custom.tenants[String(initech.length)]?.baseUrl;
  const log = await client.messages.send({
    sender_phone: senderNumbers[0]?.phone ?? '',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content: other ?? 'Hello',
  });
  await sandbox.close();
  return client.waitForDelivery(log.id, { until: 'read' });
}
// @ts-expect-error text needs content
new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: 'k' }).messages.send({ sender_phone: '+1', to_phone: '+2', type: 'text' });
`;

const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  target: 'es2022',
  types: ['node'],
};

/** The resolutions a user's project may have, each with the files it checks. */
const RESOLUTIONS = [
  { name: 'nodenext', files: ['esm.mts', 'cjs.cts'], options: { module: 'nodenext', moduleResolution: 'nodenext' } },
  {
    name: 'bundler',
    files: ['bundler.ts'],
    // With the condition wrangler resolves: the Workers build has the same types.
    options: { module: 'esnext', moduleResolution: 'bundler', customConditions: ['workerd'] },
  },
];

let work: string;
let projects: Record<keyof typeof TYPES_NODE, string> | undefined;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-types-'));
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  const tarball = join(work, (JSON.parse(stdout) as { filename: string }[])[0]?.filename ?? '');
  // One install (the newest of everything); the floor's project is a copy of it with @types/node 22
  // unpacked in place of the newest, as the registry ships it: a second install cost as much CPU
  // as the rest of this file.
  const install = async (): Promise<string> => {
    const project = join(work, 'newest');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'types-newest', private: true }));
    const wanted = [tarball, 'typescript@latest', `@types/node@${TYPES_NODE.newest}`, ...PEERS];
    const installing = () => npm(['install', ...wanted, '--no-audit', '--no-fund', '--ignore-scripts'], project);
    // Once more after a failure: the registry is across the network (a run beside two CPU hogs
    // saw one install fail).
    await installing().catch(installing);
    return project;
  };
  const withTypesNode = async (newest: string, version: string): Promise<string> => {
    const project = join(work, 'floor');
    const packed = npm(['pack', `@types/node@${version}`, '--json', '--pack-destination', work], work);
    await cp(newest, project, { recursive: true, verbatimSymlinks: true });
    const typesTarball = join(work, (JSON.parse((await packed).stdout) as { filename: string }[])[0]?.filename ?? '');
    const typesNode = join(project, 'node_modules', '@types', 'node');
    await rm(typesNode, { recursive: true, force: true });
    await mkdir(typesNode);
    await run('tar', ['-xzf', typesTarball, '-C', typesNode, '--strip-components=1']);
    return project;
  };
  try {
    const newest = await install();
    projects = { newest, floor: await withTypesNode(newest, TYPES_NODE.floor) };
  } catch (error) {
    // npm's own last lines say why (the first is only the command).
    const stderr = (error as { stderr?: unknown }).stderr;
    const why = `${error instanceof Error ? error.message.split('\n')[0] : String(error)}${typeof stderr === 'string' ? `\n${stderr.trim().split('\n').slice(-5).join('\n')}` : ''}`;
    componentAvailable(false, `the type matrix installs typescript and @types/node from the npm registry: ${why}`);
  }
}, 180_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The installed version of `name` in `project`. */
const versionOf = async (project: string, name: string): Promise<string> =>
  (JSON.parse(await readFile(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

describe('the published declarations compile with the toolchains users have', () => {
  for (const line of Object.keys(TYPES_NODE) as (keyof typeof TYPES_NODE)[]) {
    for (const resolution of RESOLUTIONS) {
      it(`newest typescript, @types/node ${TYPES_NODE[line]}, ${resolution.name}`, async (context) => {
        if (!projects) return context.skip();
        const project = projects[line];
        const versions = `typescript ${await versionOf(project, 'typescript')}, @types/node ${await versionOf(project, '@types/node')}`;
        console.log(`type matrix (${resolution.name}): ${versions}`);
        const config = `tsconfig.${resolution.name}.json`;
        for (const file of resolution.files) await writeFile(join(project, file), USAGE);
        await writeFile(
          join(project, config),
          JSON.stringify({ compilerOptions: { ...STRICT, ...resolution.options }, files: resolution.files }),
        );
        const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
        const result = await run(process.execPath, [tsc, '-p', join(project, config)]).then(
          () => '',
          (error: { stdout?: string }) => error.stdout ?? String(error),
        );
        expect(result, `tsc with ${versions}`).toBe('');
      }, 120_000);
    }
  }
});
