/**
 * The published declarations against the toolchains users compile with. The packed package is
 * installed once, with the newest `typescript` and `@types/node` from the registry (fetched now, so
 * the day a new major ships is the day this test sees it), and every optional peer linked from the
 * repository's own install; each project is that install hard-linked, less what it must not have. Every case is checked under `strict`,
 * `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`, with no `skipLibCheck`:
 *
 * - every public entry with only the optional peers it needs itself (`./testing` without msw, the
 *   main entry without libphonenumber-js...), on the newest TypeScript, for ESM and CommonJS
 *   (`nodenext`) and for a bundler's resolution with the Workers condition;
 * - the entries promised on Workers (`.` and `./webhooks`) with `types: []`, no `@types/node`
 *   installed and a Worker's lib, on the newest TypeScript and on its floor, TypeScript 6.0 (the
 *   project's `@typescript/typescript6`, the last compiler before the native one);
 * - all entries together with every peer, msw's `setupServer(...sandboxHandlers(sandbox))`
 *   included: on the newest against the newest `@types/node` and 22 (the engines floor), and on
 *   the floor. The floor checks what a compiler's version could change, the declarations' syntax
 *   and checking, in two programs: a compiler written in JavaScript is several times the native
 *   one's cost for each.
 *
 * The compilers' versions are checked against their lines (the floor is TypeScript 6 and
 * `@types/node` 22). Needs `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { componentAvailable } from '../helpers/components.js';
import { npm, root } from '../helpers/npm.js';
import { sharedPackages } from '../helpers/pack.js';
import { ALL_ENTRIES, ENTRIES, WORKER_ENTRIES } from '../helpers/type-matrix-entries.js';

const run = promisify(execFile);

/** The `@types/node` lines of the all-entries cases: the newest, and the floor of `engines.node`. */
const TYPES_NODE = { newest: 'latest', floor: '22' } as const;
/** The optional peers (and the types one of them needs). */
const PEERS = ['bullmq', 'ioredis', 'pg', '@types/pg', 'msw', '@opentelemetry/api', 'libphonenumber-js'];

/**
 * The compilers: the newest `typescript` from the registry, installed with the package, and the
 * floor, TypeScript 6.0 (`@typescript/typescript6`, a devDependency: no second download). Paths
 * are relative to the install's root, or absolute.
 */
const floorTsc = createRequire(join(root, 'package.json')).resolve('@typescript/typescript6/bin/tsc6');
const COMPILERS = { newest: 'node_modules/typescript/bin/tsc', floor: floorTsc } as const;
type Compiler = keyof typeof COMPILERS;

/** The strictest options a user's project may have; each case adds its resolution and types. */
const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  target: 'es2022',
};

const NODENEXT = { module: 'nodenext', moduleResolution: 'nodenext' };
/** With the condition wrangler resolves: the Workers build has the same types. */
const BUNDLER = { module: 'esnext', moduleResolution: 'bundler', customConditions: ['workerd'] };

interface Case {
  readonly name: string;
  readonly compiler: Compiler;
  /** The project's folder under `work`. */
  readonly project: string;
  readonly files: Record<string, string>;
  readonly options: Record<string, unknown>;
}

/**
 * The entries grouped by the optional peers they need, each group a project with only those
 * peers. The entries of a group share one program, each in a file of its own: the declarations
 * declare no globals, so one entry cannot lend another a type, and a program costs what its
 * `@types/node` costs whatever the number of files.
 */
const GROUPS = [...new Set(ENTRIES.map(({ peers }) => peers.join(' ')))]
  .map((peers) => ENTRIES.filter((entry) => entry.peers.join(' ') === peers))
  .map((entries) => ({
    names: entries.map(({ entry }) => entry).join(' '),
    project: projectOf(entries[0]?.entry ?? '.'),
    peers: entries[0]?.peers ?? [],
    files: (extension: string) =>
      Object.fromEntries(entries.map(({ entry, code }) => [`${projectOf(entry)}.${extension}`, code])),
  }));

/** A group's cases: nodenext (ESM and CommonJS) and a bundler's resolution with the Workers condition. */
const groupCases = (compiler: Compiler): Case[] =>
  GROUPS.flatMap((group) => {
    const name = `${group.names}, optional peers: ${group.peers.join(' ') || 'none'}, @types/node`;
    const nodenext: Case = {
      name: `${name}, nodenext`,
      compiler,
      project: group.project,
      files: { ...group.files('mts'), ...group.files('cts') },
      options: { ...NODENEXT, types: ['node'] },
    };
    const bundler: Case = {
      name: `${name}, bundler (workerd)`,
      compiler,
      project: group.project,
      files: group.files('ts'),
      options: { ...BUNDLER, types: ['node'] },
    };
    return [nodenext, bundler];
  });

/** The Workers case on one compiler: no `@types/node` installed, `types: []`, a Worker's lib. */
const workerCase = (compiler: Compiler): Case => ({
  name: `${WORKER_ENTRIES.join(' ')}, optional peers: none, types: [] and no @types/node, bundler (workerd), lib webworker`,
  compiler,
  project: 'worker',
  files: Object.fromEntries(
    ENTRIES.filter(({ entry }) => WORKER_ENTRIES.includes(entry)).map(({ entry, code }) => [
      `${projectOf(entry)}.ts`,
      code,
    ]),
  ),
  options: { ...BUNDLER, types: [], lib: ['es2023', 'webworker'] },
});

/** All entries with every peer, on `compiler` against the `@types/node` of `line`. */
const allEntriesCase = (compiler: Compiler, line: keyof typeof TYPES_NODE): Case => ({
  name: `all entries, every optional peer, @types/node ${TYPES_NODE[line]}, nodenext`,
  compiler,
  project: line === 'newest' ? 'full' : 'all-floor',
  files: { 'esm.mts': ALL_ENTRIES, 'cjs.cts': ALL_ENTRIES },
  options: { ...NODENEXT, types: ['node'] },
});

/**
 * The longest first: two run at a time (WIDTH below), and the floor's compiler, written in
 * JavaScript, takes several times what the native one does for a case. Started last, the floor's
 * all-entries case ran alone at the end, for about a third of the file's time.
 */
const MATRIX: Case[] = [
  allEntriesCase('floor', 'newest'),
  workerCase('floor'),
  allEntriesCase('newest', 'newest'),
  allEntriesCase('newest', 'floor'),
  ...groupCases('newest'),
  workerCase('newest'),
];

/** The folder of the project that holds `entry` with only its own peers. */
function projectOf(entry: string): string {
  return `entry-${entry === '.' ? 'main' : entry.slice(2)}`;
}

let work: string;
let ready = false;
/** TypeScript 7 and later: the native compiler, which takes `--singleThreaded`. */
let nativeNewest = false;
const versions: Record<string, string> = {};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-types-'));
  try {
    const tarball = (await sharedPackages()).sdk;
    const full = join(work, 'full');
    await mkdir(full);
    await writeFile(join(full, 'package.json'), JSON.stringify({ name: 'types-full', private: true }));
    const wanted = [tarball, 'typescript@latest', `@types/node@${TYPES_NODE.newest}`];
    const installing = (cache: '--prefer-offline' | '--prefer-online') =>
      npm(['install', ...wanted, '--no-audit', '--no-fund', '--ignore-scripts', cache], full);
    // Once more after a failure, asking the registry afresh: it is across the network, and minutes
    // after a release npm's cached metadata can name a `latest` it does not list yet (ETARGET).
    await installing('--prefer-offline').catch(() => installing('--prefer-online'));
    // The peers: the repository's copies, linked as an install places them (their own dependencies
    // resolve from their real paths), rather than a second install of their whole trees.
    for (const peer of PEERS) {
      await mkdir(dirname(join(full, 'node_modules', peer)), { recursive: true });
      await symlink(join(root, 'node_modules', peer), join(full, 'node_modules', peer), 'dir');
    }
    const packed = npm(['pack', `@types/node@${TYPES_NODE.floor}`, '--json', '--pack-destination', work], work);
    // Each project is the full install hard-linked (a copy would cost seconds), less what it must not have.
    const project = async (name: string, without: string[]): Promise<string> => {
      const dir = join(work, name);
      await run('cp', ['-al', full, dir]);
      await Promise.all(without.map((pkg) => rm(join(dir, 'node_modules', pkg), { recursive: true, force: true })));
      return dir;
    };
    const absent = (needed: readonly string[]) => PEERS.filter((peer) => !needed.includes(peer));
    await Promise.all([
      ...GROUPS.map(({ project: name, peers }) => project(name, absent(peers))),
      project('worker', [...absent([]), '@types/node']),
    ]);
    // The floor's @types/node unpacked in place of the newest, as the registry ships it.
    const floor = await project('all-floor', ['@types/node']);
    const typesTarball = join(work, (JSON.parse((await packed).stdout) as { filename: string }[])[0]?.filename ?? '');
    await mkdir(join(floor, 'node_modules', '@types', 'node'));
    await run('tar', [
      '-xzf',
      typesTarball,
      '-C',
      join(floor, 'node_modules', '@types', 'node'),
      '--strip-components=1',
    ]);
    versions['typescript (newest)'] = await versionOf(full, 'typescript');
    nativeNewest = Number(versions['typescript (newest)'].split('.')[0]) >= 7;
    versions['typescript (floor)'] = await versionOf(join(floorTsc, '../..'), '');
    versions['@types/node (newest)'] = await versionOf(full, '@types/node');
    versions['@types/node (floor)'] = await versionOf(floor, '@types/node');
    ready = true;
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

/** The installed version of `name` in `project` (`name` '' reads `project`'s own package.json). */
async function versionOf(project: string, name: string): Promise<string> {
  const file = name ? join(project, 'node_modules', name, 'package.json') : join(project, 'package.json');
  return (JSON.parse(await readFile(file, 'utf8')) as { version: string }).version;
}

const label = (c: Case): string => `TypeScript ${c.compiler}: ${c.name}`;

/** Type-checks one case in its project; resolves with tsc's output, '' when it passed. */
async function check(c: Case, index: number): Promise<string> {
  const project = join(work, c.project);
  const dir = join(project, `case-${index}`);
  await mkdir(dir);
  for (const [file, text] of Object.entries(c.files)) await writeFile(join(dir, file), text);
  const config = join(dir, 'tsconfig.json');
  await writeFile(
    config,
    JSON.stringify({ compilerOptions: { ...STRICT, ...c.options }, files: Object.keys(c.files) }),
  );
  const tsc = c.compiler === 'floor' ? COMPILERS.floor : join(work, 'full', COMPILERS.newest);
  // The native compiler checks on several threads by default: two cases already run side by side
  // beside the suite, where one thread each costs about a quarter less CPU for the same result.
  const threads = c.compiler === 'newest' && nativeNewest ? ['--singleThreaded'] : [];
  return run(process.execPath, [tsc, '-p', config, ...threads]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout || String(error),
  );
}

// Two compilers at a time: the cases are CPU-bound and independent (each has its own folder).
const WIDTH = Math.min(2, availableParallelism());
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= WIDTH) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

describe.concurrent('the published declarations compile with the toolchains users have', () => {
  it('the compilers and @types/node are the lines the matrix names', (context) => {
    if (!ready) return context.skip();
    expect(versions['typescript (floor)']).toMatch(/^6\./);
    expect(versions['@types/node (floor)']).toMatch(/^22\./);
    const major = (name: string) => Number(versions[name]?.split('.')[0]);
    expect(major('typescript (newest)')).toBeGreaterThanOrEqual(major('typescript (floor)'));
    expect(major('@types/node (newest)')).toBeGreaterThanOrEqual(major('@types/node (floor)'));
  });

  MATRIX.forEach((c, index) => {
    it(label(c), async (context) => {
      if (!ready) return context.skip();
      const output = await slot(() => check(c, index));
      expect(output, `${label(c)} (${JSON.stringify(versions)})`).toBe('');
    }, 300_000);
  });
});
