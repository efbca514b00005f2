/**
 * No secret the command line knows reaches its output, in any encoding: the built bin as a
 * subprocess, the way a user meets it. The API key (the environment's, --api-key-file's, the
 * refused --api-key), TENANT_MESSAGING_MCP_TOKEN, any *WEBHOOK_SECRET and listen's --secret-file,
 * written in each of the encodings of decodings.ts into a --base-url the SDK quotes back, a request path its error
 * and its log (--verbose) quote, listen's forward URL, commander's "unknown command": stdout and
 * stderr, decoded every way the test knows (decodings.ts), never show one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENCODINGS, tracesOf } from '../../../bin-kit/test/decodings.js';
import { spawnBin, waitFor } from '../../../bin-kit/test/integration/bin-process.js';

const bin = join(import.meta.dirname, '../../dist/main.js');

/** Secrets of characters that need encoding in a URL (`+`, `/`, `=`, `&`, `%`, non-ASCII). */
const ENV_KEY = 'tm_live_Sëcret+Key/42=&%x';
const TOKEN = 'mcp+token/Ünï=0123456789';
const HOOKS = 'whsec_++++/2hvb2tzIHNlY3JldCBvZiB0aGUgdGVzdCAwMQ==';

let sandbox: RunningSandbox;
let tenantUrl: string;
let fileKey: string;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  tenantUrl = tenant.baseUrl;
  // The sandbox's key, from a file: the one the requests below are made with.
  fileKey = tenant.keys.full;
  dir = await mkdtemp(join(tmpdir(), 'tm-redact-'));
  await writeFile(join(dir, 'key'), `${fileKey}\n`);
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the bin to its end with `env` (no other secret of this machine's environment). */
async function cli(args: string[], env: Record<string, string | undefined>) {
  const run = spawnBin(bin, args, { TENANT_MESSAGING_BASE_URL: undefined, NO_COLOR: '1', ...env }, 'ignore');
  const code = await run.exit;
  return { code, out: `${run.stdout()}\n${run.stderr()}`, stderr: run.stderr() };
}

/** What was printed never shows `secret`, however the test decodes it, nor its start (what a cut would keep). */
function expectHidden(printed: string, secret: string): void {
  const start = secret.slice(0, Math.max(12, Math.floor(secret.length / 3)));
  expect(tracesOf(printed, [secret, start]), printed).toEqual([]);
}

describe('the command line never prints a secret it knows, in any encoding', () => {
  it('a --base-url the SDK quotes back, holding every secret in each of its encodings (decodings.ts)', async () => {
    const secrets = { ENV_KEY, TOKEN, HOOKS, FILE_KEY: fileKey };
    const query = Object.entries(secrets).flatMap(([name, secret]) =>
      Object.values(ENCODINGS).map((encode, i) => `${name}${i}=${encode(secret)}`),
    );
    // A space makes it no URL: the refusal quotes it whole.
    const baseUrl = `http://exa mple/?${query.join('&')}`;
    const run = await cli(['--base-url', baseUrl, '--api-key-file', join(dir, 'key'), 'me'], {
      TENANT_MESSAGING_API_KEY: ENV_KEY,
      TENANT_MESSAGING_MCP_TOKEN: TOKEN,
      ACME_WEBHOOK_SECRET: HOOKS,
    });
    expect(run.code, run.out).toBe(2);
    expect(run.stderr).toMatch(/--base-url: 'http:\/\/exa mple\/\?ENV_KEY0=\[redacted\]&ENV_KEY1=.* is not a URL/);
    // Each value was found: every parameter shows [redacted] where its value was.
    for (const parameter of query) expect(run.stderr).toContain(`${parameter.split('=')[0]}=`);
    expect(run.stderr.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(query.length);
    for (const secret of Object.values(secrets)) expectHidden(run.out, secret);
  });

  it("the key of --api-key-file in a request's path: the error and the SDK's log (--verbose)", async () => {
    const path = `/messages/${Buffer.from(fileKey).toString('base64url')}`;
    const run = await cli(['--verbose', '--api-key-file', join(dir, 'key'), 'request', 'GET', path], {
      TENANT_MESSAGING_BASE_URL: tenantUrl,
      TENANT_MESSAGING_API_KEY: undefined,
    });
    expect(run.code, run.out).toBe(1);
    expect(run.stderr).toMatch(/^\[debug\] \[tenant-messaging\] GET \[redacted\] 404 .*"path":"\[redacted\]"/m);
    // A path off the table whose 404 says its route is unknown: the URL, in our words.
    expect(run.stderr).toMatch(/^NotFoundError: No such endpoint: .* answered HTTP 404\.$/m);
    expectHidden(run.out, fileKey);
  });

  it("listen: the secret of --secret-file in the forward URL's path, on its ready line", async () => {
    await writeFile(join(dir, 'hooks'), HOOKS);
    const forwardTo = `http://127.0.0.1:9/hooks/${encodeURIComponent(HOOKS)}`;
    const args = ['listen', '--secret-file', join(dir, 'hooks'), '--forward-to', forwardTo, '--interval', '50ms'];
    const run = spawnBin(
      bin,
      args,
      { TENANT_MESSAGING_BASE_URL: tenantUrl, TENANT_MESSAGING_API_KEY: fileKey },
      'ignore',
    );
    await waitFor(run.stderr, /^Ready\. Forwarding to /m);
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain(
      'Ready. Forwarding to http://127.0.0.1:9/hooks/[redacted], signed with the secret from',
    );
    expectHidden(`${run.stdout()}\n${run.stderr()}`, HOOKS);
  });

  it('the refused --api-key, quoted by commander as a long command (shortened after, not before, redaction)', async () => {
    const key = `tm_live_${'Refused+Key/'.repeat(5)}`;
    // base64 of 68 characters is 92: a refusal shortens it to its first 40, which decode to 30 of the key's.
    const typed = Buffer.from(key).toString('base64');
    const run = await cli(['--api-key', key, typed], {});
    expect(run.code, run.out).toBe(2);
    expect(run.stderr).toContain("error: unknown command '[redacted]'");
    expectHidden(run.out, key);
    // What is not a secret is quoted as typed: `$&`, `$'` are text, not replacement patterns.
    const odd = await cli(['x$&y$`z$$', 'me'], {});
    expect(odd.stderr).toContain("error: unknown command 'x$&y$`z$$'");
  });
});
