/**
 * The consumer test: pack the package as npm would publish it, install the tarball into a fresh
 * project, and use it through `import`, `require` and a `tsc` type check. Also runs publint and
 * "are the types wrong" on the tarball. Needs `npm run build` first (`npm test` does it).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/npm.js';
import { copyProject, sharedPackages } from '../helpers/pack.js';

const run = promisify(execFile);
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const node = process.execPath;

let work: string;
let tarball: string;
let project: string;
/** publint's and attw's problems with the tarball: started with the file, awaited by its test. */
let linted: Promise<string[]>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-pack-'));
  const packed = await sharedPackages();
  tarball = packed.sdk;
  // A copy: the tests below link optional peers into its node_modules for a while.
  project = await copyProject(packed.sdkProject, join(work, 'consumer'));
  // The longest check (seconds of CPU, reading only the tarball): it runs beside the tests below
  // rather than after them. Its test reports its failure.
  linted = lint(tarball);
  linted.catch(() => undefined);
}, 180_000);

/** publint and are-the-types-wrong on `tarball`, side by side: the lines of attw's table that are problems. */
async function lint(tarball: string): Promise<string[]> {
  // The tarball itself, as attw and the install test use it (publint would otherwise pack the tree again).
  const publint = run(node, [bin('publint'), '--strict', tarball]);
  const attw = run(node, [bin('attw'), tarball, '--format', 'table-flipped', '--profile', 'node16']).catch(
    (error: { stdout: string }) => {
      throw new Error(`attw failed:\n${error.stdout}`);
    },
  );
  const [, { stdout }] = await Promise.all([publint, attw]);
  // node10 resolution of subpaths is reported but ignored under the node16 profile (no exports map there).
  return stdout.split('\n').filter((line) => /❌|💀|🐛/.test(line) && !line.includes('(ignored'));
}

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * Runs `body` with the repository's own copies of `names` linked into the consumer, as a consumer's
 * install would place them (their dependencies resolve from their real paths), then unlinks them.
 */
async function withLinked(names: string[], body: () => Promise<void>): Promise<void> {
  const links = names.map((name) => join(project, 'node_modules', name));
  for (const [i, link] of links.entries()) {
    await mkdir(dirname(link), { recursive: true });
    await symlink(join(root, 'node_modules', names[i] ?? ''), link, 'dir');
  }
  try {
    await body();
  } finally {
    for (const link of links) await rm(link, { force: true });
  }
}

describe('the published package', () => {
  it('is small and ships only dist, its docs and examples, README, CHANGELOG and package.json', async () => {
    const { size } = await stat(tarball);
    // Source maps ship as lines only (stack traces map to src/*.ts, the sources are not copied in),
    // and the guides and examples ship (the README's links resolve inside the package). The bound
    // is the promise of docs/performance.md: at most 1 MB.
    expect(size).toBeLessThanOrEqual(1_000_000);
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const top = new Set(
      stdout
        .trim()
        .split('\n')
        .map((p) => p.split('/')[1]),
    );
    expect([...top].sort()).toEqual(['CHANGELOG.md', 'README.md', 'dist', 'docs', 'examples', 'package.json']);
  });

  it('works through import', async () => {
    const script = `import { MessagingClient, ValidationError, VERSION } from 'tenant-messaging';
      const c = new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: 'k' });
      try { await c.messages.get(0) } catch (e) { console.log(e instanceof ValidationError, c.baseUrl, VERSION) }`;
    const { stdout } = await run(node, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout.trim()).toBe('true https://a.example.com/api/v1 0.1.0');
  });

  it('works through require', async () => {
    const script = `const { MessagingClient, MessagingError, NotFoundError } = require('tenant-messaging');
      const c = new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: 'k' });
      console.log(typeof c.messages.send, new NotFoundError(404, 'x', {}, {}) instanceof MessagingError)`;
    const { stdout } = await run(node, ['-e', script], { cwd: project });
    expect(stdout.trim()).toBe('function true');
  });

  it('the sandbox and testing entry points load through import and require', async () => {
    const esm = `import { startSandbox } from 'tenant-messaging/sandbox';
      import { MessagingClient } from 'tenant-messaging';
      const sb = await startSandbox();
      const c = new MessagingClient({ baseUrl: sb.tenants.acme.baseUrl, apiKey: sb.tenants.acme.keys.full });
      const me = await c.me(); await sb.close(); console.log(me.tenant.slug)`;
    expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('acme');
    const cjs = `const { createSandbox } = require('tenant-messaging/sandbox'); console.log(typeof createSandbox)`;
    expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('function');
  });

  it("tenant-messaging/testing works without msw (the README's first example), through import and require", async () => {
    // msw is an optional peer dependency: npm does not install it, and nothing above the consumer provides it.
    const missing = `import('msw').then(() => console.log('found'), (e) => console.log(e.code))`;
    expect((await run(node, ['--input-type=module', '-e', missing], { cwd: project })).stdout.trim()).toBe(
      'ERR_MODULE_NOT_FOUND',
    );
    const example = (load: string) => `${load}
      const sandbox = createSandbox();
      const { baseUrl, keys } = sandbox.tenants.acme;
      const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });
      await client.messages.send({ sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content: 'Hi' });
      let refused;
      try { sandboxHandlers(sandbox) } catch (e) { refused = e instanceof MessagingError && /npm install --save-dev msw/.test(e.message) }
      console.log(sandbox.messages('acme').length, refused);`;
    const esm = example(`import { MessagingClient, MessagingError } from 'tenant-messaging';
      import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
      import { sandboxHandlers } from 'tenant-messaging/testing';`);
    expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('1 true');
    const cjs = `(async () => { ${example(`const { MessagingClient, MessagingError } = require('tenant-messaging');
      const { createSandbox, SANDBOX_PHONES } = require('tenant-messaging/sandbox');
      const { sandboxHandlers } = require('tenant-messaging/testing');`)} })()`;
    expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('1 true');
  });

  it('sandboxHandlers works with msw installed, through import and require', async () => {
    await withLinked(['msw'], async () => {
      const example = (load: string) => `${load}
        const sandbox = createSandbox();
        const server = setupServer(...sandboxHandlers(sandbox));
        server.listen({ onUnhandledRequest: 'error' });
        const client = new MessagingClient({ baseUrl: sandbox.tenants.acme.baseUrl, apiKey: sandbox.tenants.acme.keys.full, fetch });
        try { console.log((await client.me()).tenant.slug) } finally { server.close() }`;
      const esm = example(`import { setupServer } from 'msw/node';
        import { MessagingClient } from 'tenant-messaging';
        import { createSandbox } from 'tenant-messaging/sandbox';
        import { sandboxHandlers } from 'tenant-messaging/testing';`);
      expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('acme');
      const cjs = `(async () => { ${example(`const { setupServer } = require('msw/node');
        const { MessagingClient } = require('tenant-messaging');
        const { createSandbox } = require('tenant-messaging/sandbox');
        const { sandboxHandlers } = require('tenant-messaging/testing');`)} })()`;
      expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('acme');
    });
  });

  it('the main entry never loads @opentelemetry/api, even when installed; tenant-messaging/otel loads it when instrument() is called', async () => {
    await withLinked(['@opentelemetry/api'], async () => {
      // A resolve hook sees every import and require of the process; the last line is the control
      // that proves it would have seen the API being loaded.
      const script = `import { registerHooks, createRequire } from 'node:module';
        const seen = [];
        registerHooks({ resolve(specifier, context, next) { if (specifier.startsWith('@opentelemetry/')) seen.push(specifier); return next(specifier, context) } });
        const { MessagingClient } = await import('tenant-messaging');
        const { startSandbox } = await import('tenant-messaging/sandbox');
        createRequire(import.meta.url)('tenant-messaging');
        const sb = await startSandbox();
        const c = new MessagingClient({ baseUrl: sb.tenants.acme.baseUrl, apiKey: sb.tenants.acme.keys.full });
        await c.me(); await c.messages.list().catch(() => {}); await sb.close();
        const before = seen.length;
        const { instrument } = await import('tenant-messaging/otel');
        const loadedByImport = seen.length > before;
        instrument()();
        console.log(before, loadedByImport, seen.includes('@opentelemetry/api'))`;
      const { stdout } = await run(node, ['--input-type=module', '-e', script], { cwd: project });
      expect(stdout.trim()).toBe('0 false true');
    });
  });

  it('tenant-messaging/otel without @opentelemetry/api: the entry loads, instrument() says what to install', async () => {
    // An optional peer dependency: npm does not install it, and nothing above the consumer provides it.
    const missing = `import('@opentelemetry/api').then(() => console.log('found'), (e) => console.log(e.code))`;
    expect((await run(node, ['--input-type=module', '-e', missing], { cwd: project })).stdout.trim()).toBe(
      'ERR_MODULE_NOT_FOUND',
    );
    const check = `let said;
      try { instrument() } catch (e) { said = e instanceof MessagingError && e.message.includes('npm install @opentelemetry/api') }
      console.log(said)`;
    const esm = `import { instrument } from 'tenant-messaging/otel'; import { MessagingError } from 'tenant-messaging'; ${check}`;
    expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('true');
    const cjs = `const { instrument } = require('tenant-messaging/otel'); const { MessagingError } = require('tenant-messaging'); ${check}`;
    expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('true');
  });

  it('tenant-messaging/bullmq without bullmq: importing it says what to install, through import and require', async () => {
    const check = (load: string) =>
      `${load}.then(() => console.log('loaded'), (e) => console.log(e instanceof MessagingError && e.message.includes('npm install bullmq ioredis')))`;
    const esm = `import { MessagingError } from 'tenant-messaging'; ${check("import('tenant-messaging/bullmq')")}`;
    expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('true');
    const cjs = `const { MessagingError } = require('tenant-messaging'); ${check("Promise.resolve().then(() => require('tenant-messaging/bullmq'))")}`;
    expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('true');
  });

  it('the main entry never loads bullmq or ioredis, even when installed; tenant-messaging/bullmq does', async () => {
    await withLinked(['bullmq', 'ioredis'], async () => {
      const script = `import { registerHooks, createRequire } from 'node:module';
        const seen = [];
        registerHooks({ resolve(specifier, context, next) { if (/^(bullmq|ioredis)$/.test(specifier)) seen.push(specifier); return next(specifier, context) } });
        await import('tenant-messaging');
        await import('tenant-messaging/sandbox');
        createRequire(import.meta.url)('tenant-messaging');
        const before = seen.length;
        const esm = await import('tenant-messaging/bullmq');
        const cjs = createRequire(import.meta.url)('tenant-messaging/bullmq');
        console.log(before, seen.includes('bullmq'), typeof esm.MessagingQueue, typeof cjs.MessagingWorker)`;
      const { stdout } = await run(node, ['--input-type=module', '-e', script], { cwd: project });
      expect(stdout.trim()).toBe('0 true function function');
    });
  });

  it('tenant-messaging/otel records a span per call through import and require', async () => {
    await withLinked(['@opentelemetry/api', '@opentelemetry/sdk-trace'], async () => {
      const example = (load: string) => `${load}
        const exporter = new InMemorySpanExporter();
        const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
        const stop = instrument({ tracerProvider });
        const sb = await startSandbox();
        const c = new MessagingClient({ baseUrl: sb.tenants.acme.baseUrl, apiKey: sb.tenants.acme.keys.full });
        try { await c.me() } finally { stop(); await sb.close() }
        console.log(exporter.getFinishedSpans().map((s) => s.name).join())`;
      const esm = example(`import { MessagingClient } from 'tenant-messaging';
        import { startSandbox } from 'tenant-messaging/sandbox';
        import { instrument } from 'tenant-messaging/otel';
        import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';`);
      expect((await run(node, ['--input-type=module', '-e', esm], { cwd: project })).stdout.trim()).toBe('client.me');
      const cjs = `(async () => { ${example(`const { MessagingClient } = require('tenant-messaging');
        const { startSandbox } = require('tenant-messaging/sandbox');
        const { instrument } = require('tenant-messaging/otel');
        const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = require('@opentelemetry/sdk-trace');`)} })()`;
      expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('client.me');
    });
  });

  it('tenant-messaging/openapi.json resolves through import (with type: json) and require', async () => {
    const esm = `import doc from 'tenant-messaging/openapi.json' with { type: 'json' };
      console.log(doc.openapi, Object.keys(doc.paths).length)`;
    const { stdout } = await run(node, ['--input-type=module', '-e', esm], { cwd: project });
    expect(stdout.trim()).toMatch(/^3\.1\.\d+ 7$/);
    const cjs = `console.log(require('tenant-messaging/openapi.json').info.title)`;
    expect((await run(node, ['-e', cjs], { cwd: project })).stdout.trim()).toBe('Tenant Messaging API');
  });

  it('internal modules are not reachable', async () => {
    const script = `import('tenant-messaging/dist/core/retry.js').then(() => console.log('reachable'), (e) => console.log(e.code))`;
    const { stdout } = await run(node, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('passes publint and are-the-types-wrong', async () => {
    expect(await linted).toEqual([]);
  });

  it('declares the engines floor and the runtime dependencies', async () => {
    const pkg = JSON.parse(await readFile(join(project, 'node_modules', 'tenant-messaging', 'package.json'), 'utf8'));
    expect(pkg.engines.node).toBe('>=22.19');
    // zod/mini is bundled (tree-shaken) into the lazily loaded schema chunk, and p-retry into the
    // build (tsup.config.ts): neither is installed at run time.
    // The command line and the MCP server are packages of their own (test/integration/install.test.ts).
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['form-data-encoder', 'formdata-node', 'undici']);
    expect(pkg.bin).toBeUndefined();
    // Optional peers: each is loaded only by the entry that needs it, and only when it is used.
    expect(pkg.peerDependenciesMeta).toEqual({
      '@opentelemetry/api': { optional: true },
      bullmq: { optional: true },
      ioredis: { optional: true },
      'libphonenumber-js': { optional: true },
      msw: { optional: true },
      pg: { optional: true },
    });
    expect(pkg.peerDependencies).toMatchObject({ bullmq: '^6.0.0', ioredis: '^5.0.0', pg: '^8.0.0' });
  });
});
