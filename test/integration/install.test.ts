/**
 * The three packages as users install them: the SDK alone in an empty project (it installs light,
 * and has no bin), then the SDK, `tenant-messaging-cli` and `tenant-messaging-mcp` from their packed
 * tarballs together, each bin run as a user runs it. Needs `npm run build` first (`npm test` does it).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSandboxStory } from '../helpers/demo-story.js';
import { npm, root } from '../helpers/npm.js';
import { installInto, type SharedPackages, sharedPackages } from '../helpers/pack.js';

const run = promisify(execFile);
const node = process.execPath;
const sdkVersion = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version as string;

let work: string;
let tarballs: SharedPackages;
/** The suite's SDK installed alone: read here, never changed. */
let alone: string;
let together: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-install-'));
  tarballs = await sharedPackages();
  alone = tarballs.sdkProject;
  together = await installInto(work, 'all-three', [tarballs.sdk, tarballs.cli, tarballs.mcp]);
  sandbox = await startSandbox();
}, 240_000);

afterAll(async () => {
  await sandbox?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The packages installed under `project` (npm's own view) and the size of its node_modules. */
async function footprint(project: string): Promise<{ packages: number; bytes: number }> {
  const { stdout } = await npm(['ls', '--all', '--parseable'], project);
  const packages = stdout.trim().split('\n').length - 1; // the first line is the project itself
  const { stdout: du } = await run('du', ['-sk', join(project, 'node_modules')]);
  return { packages, bytes: Number(du.split('\t')[0]) * 1024 };
}

describe('tenant-messaging installed alone', () => {
  it('installs light: at most 6 packages and 9 MB, and no bin', async () => {
    const { packages, bytes } = await footprint(alone);
    expect(packages).toBeLessThanOrEqual(6);
    // On disk (du): 8.1 MB once the source maps stopped copying the sources (docs/performance.md).
    expect(bytes).toBeLessThanOrEqual(9e6);
    expect(await readdir(join(alone, 'node_modules', '.bin')).catch(() => [])).toEqual([]);
  });
});

describe('tenant-messaging, tenant-messaging-cli and tenant-messaging-mcp installed together', () => {
  it('each tool depends on the SDK at its own version, released in lockstep', async () => {
    for (const name of ['tenant-messaging-cli', 'tenant-messaging-mcp']) {
      const pkg = JSON.parse(await readFile(join(together, 'node_modules', name, 'package.json'), 'utf8'));
      expect(pkg.version, name).toBe(sdkVersion);
      expect(pkg.dependencies['tenant-messaging'], name).toBe(sdkVersion);
    }
    const cli = JSON.parse(
      await readFile(join(together, 'node_modules', 'tenant-messaging-cli', 'package.json'), 'utf8'),
    );
    // libphonenumber-js, the SDK's optional peer: the demo's pacing step paces per recipient.
    expect(Object.keys(cli.dependencies).sort()).toEqual([
      'cli-progress',
      'commander',
      'csv-parse',
      'libphonenumber-js',
      'tenant-messaging',
    ]);
    expect(cli.bin).toEqual({ 'tenant-messaging': './dist/main.js' });
    const mcp = JSON.parse(
      await readFile(join(together, 'node_modules', 'tenant-messaging-mcp', 'package.json'), 'utf8'),
    );
    expect(Object.keys(mcp.dependencies).sort()).toEqual(['@modelcontextprotocol/sdk', 'tenant-messaging', 'zod']);
    expect(mcp.bin).toEqual({ 'tenant-messaging-mcp': './dist/main.js' });
  });

  it('`tenant-messaging demo` tells the whole story, against a sandbox it starts itself', async () => {
    // No credentials: the demo needs nothing but the installed packages. run() rejects on any exit code but 0.
    const env = { ...process.env, TENANT_MESSAGING_BASE_URL: '', TENANT_MESSAGING_API_KEY: '', NO_COLOR: '1' };
    const bin = join('node_modules', '.bin', 'tenant-messaging');
    const { stdout } = await run(node, [bin, 'demo'], { cwd: together, env });
    expectSandboxStory(stdout);
  });

  it('`tenant-messaging-mcp` answers initialize and tools/list over stdio, and exits 0 when stdin ends', async () => {
    const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
    const env = {
      ...process.env,
      TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
    };
    const child = spawn(node, [join('node_modules', '.bin', 'tenant-messaging-mcp')], { cwd: together, env });
    const answers = new Map<number, { result?: { serverInfo?: { name: string }; tools?: { name: string }[] } }>();
    let buffered = '';
    const listed = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          const answer = JSON.parse(buffered.slice(0, end));
          buffered = buffered.slice(end + 1);
          answers.set(answer.id, answer);
          if (answer.id === 2) resolve();
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'install-test', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    await listed;
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(answers.get(1)?.result?.serverInfo?.name).toMatch(/tenant-messaging/);
    const tools = answers.get(2)?.result?.tools?.map((tool) => tool.name) ?? [];
    expect(tools.sort()).toEqual(
      [
        'get_message',
        'get_usage',
        'list_messages',
        'list_sender_numbers',
        'lookup_contact',
        'wait_for_delivery',
      ].sort(),
    );
  });

  it('no SDK entry loads the tools’ libraries, though they are installed beside it', async () => {
    const script = `import { registerHooks, createRequire } from 'node:module';
      const seen = [];
      const LIBS = /^(@modelcontextprotocol\\/sdk|commander|cli-progress|csv-parse|zod)(\\/|$)/;
      registerHooks({ resolve(specifier, context, next) { const lib = LIBS.exec(specifier)?.[1]; if (lib) seen.push(lib); return next(specifier, context) } });
      // bullmq's entry refuses to load without bullmq installed: what it loads before that counts too.
      for (const entry of ['', '/sandbox', '/testing', '/webhooks', '/otel', '/bullmq']) {
        await import('tenant-messaging' + entry).catch(() => {});
        try { createRequire(import.meta.url)('tenant-messaging' + entry) } catch {}
      }
      const before = seen.length;
      // The control: the hook sees each of them when it is loaded.
      for (const lib of ['commander', 'cli-progress', 'csv-parse', '@modelcontextprotocol/sdk/server/mcp.js', 'zod']) await import(lib);
      console.log(before, [...new Set(seen)].sort().join(','));`;
    const { stdout } = await run(node, ['--input-type=module', '-e', script], { cwd: together });
    expect(stdout.trim()).toBe('0 @modelcontextprotocol/sdk,cli-progress,commander,csv-parse,zod');
  });
});
