/**
 * Spec section 5: API keys stay on the server. This loads the built ESM bundle in headless
 * Chromium and checks that constructing a client throws a clear error unless
 * `dangerouslyAllowBrowser: true`. Node built-ins and Node-only packages are mapped to tiny stubs
 * with an import map, so the module graph loads as a bundler would have made it load.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumFlags } from '../helpers/chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chromium = CHROMIUM;
if (!chromium && process.env.CI) throw new Error('CI must run the browser test: .ci/run installs Debian chromium');
if (!chromium) console.warn('browser test skipped: install Chromium with `apt-get install chromium` to run it');

const STUBS: Record<string, string> = {
  undici: 'export class Agent {}; export const request = () => { throw new Error("no undici here") };',
  'form-data-encoder': 'export class FormDataEncoder {}',
  'formdata-node': 'export class FormData {}',
  fs: 'export class ReadStream {}; export const promises = {}; export const createReadStream = () => {};',
  path: 'export const basename = (p) => p.split("/").pop();',
  stream: 'export class Readable {}',
  util: 'export const inspect = { custom: Symbol.for("nodejs.util.inspect.custom") };',
  diagnostics_channel:
    'export const channel = () => ({ hasSubscribers: false, publish() {} }); export const tracingChannel = () => ({ hasSubscribers: false });',
};

const PAGE = `<!doctype html><html><head><script type="importmap">${JSON.stringify({
  imports: {
    zod: '/node_modules/zod/index.js',
    ...Object.fromEntries(
      Object.keys(STUBS).flatMap((name) => [
        [name, `/stub/${name}.js`],
        [`node:${name}`, `/stub/${name}.js`],
      ]),
    ),
  },
})}</script></head><body>loading<script type="module">
  import { MessagingClient } from '/dist/index.js';
  const out = {};
  try { new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: 'k' }); out.refused = 'no error'; }
  catch (e) { out.refused = e.name + ': ' + e.message; }
  try { new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: 'k', dangerouslyAllowBrowser: true }); out.allowed = true; }
  catch (e) { out.allowed = String(e); }
  document.body.textContent = 'RESULT' + JSON.stringify(out);
</script></body></html>`;

let server: Server;
let url: string;
let profile: string;

beforeAll(async () => {
  if (!chromium) return;
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('run `npm run build` first (npm test does)');
  profile = await mkdtemp(join(tmpdir(), 'tm-chromium-'));
  server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const stub = /^\/stub\/(.+)\.js$/.exec(path)?.[1];
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (stub && STUBS[stub]) return res.writeHead(200, { 'content-type': 'text/javascript' }).end(STUBS[stub]);
    const file = normalize(join(root, path));
    if (!file.startsWith(join(root, 'dist')) && !file.startsWith(join(root, 'node_modules', 'zod')))
      return res.writeHead(404).end();
    try {
      const type = extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  if (!chromium) return;
  await new Promise((resolve) => server.close(resolve));
  await rm(profile, { recursive: true, force: true });
});

describe.skipIf(!chromium)('in a browser (headless Chromium, built ESM bundle)', () => {
  it('refuses to construct a client unless dangerouslyAllowBrowser', async () => {
    const { stdout } = await promisify(execFile)(
      chromium as string,
      [...chromiumFlags(profile), '--virtual-time-budget=10000', '--dump-dom', url],
      { timeout: 60_000 },
    );
    const result = JSON.parse(/RESULT(\{.*?\})</.exec(stdout)?.[1] ?? 'null') as {
      refused: string;
      allowed: unknown;
    } | null;
    expect(result, `page output:\n${stdout.slice(0, 2000)}`).not.toBeNull();
    expect(result?.refused).toMatch(/^ValidationError: MessagingClient refuses to run in a browser/);
    expect(result?.refused).toContain('dangerouslyAllowBrowser: true');
    expect(result?.allowed).toBe(true);
  }, 90_000);
});
