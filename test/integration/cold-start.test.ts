/**
 * What a cold start loads: a fresh process that imports the built package and reads one log must
 * load neither Zod and the schemas, nor the multipart stack, nor more of undici than
 * its Agent (docs/performance.md, "Lazy loading"); and a first answer that is not a valid log
 * still gets Zod's issues, and an undici laid out otherwise is loaded whole. Runs the
 * built package in a child process (`npm run build` first; `npm test` does it), with Node's
 * module hooks recording every module it loads.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
let server: TestServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url.endsWith('/messages/42')) json(res, 200, { data: messageLog({ id: 42 }) });
    else json(res, 200, { data: messageLog({ id: 43, sent_at: 'yesterday' }) });
  });
});
afterAll(() => server.close());

/**
 * Runs one `messages.get(id)` in a fresh process; gives what it printed and every module it
 * loaded. `refused`: specifiers that fail to resolve there, as for an undici laid out otherwise.
 */
async function coldGet(id: number, refused: string[] = []): Promise<{ outcome: string; loaded: string[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    const refused = ${JSON.stringify(refused)};
    registerHooks({
      resolve(specifier, context, next) {
        if (refused.includes(specifier)) throw Object.assign(new Error('Cannot find module ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
        return next(specifier, context);
      },
      load(url, context, next) { loaded.push(url); return next(url, context); },
    });
    const { MessagingClient } = await import(${JSON.stringify(`${dist}index.js`)});
    const client = new MessagingClient({ baseUrl: ${JSON.stringify(server.url)}, apiKey: 'k', maxRetries: 0 });
    const outcome = await client.messages.get(${id}).then((log) => 'log ' + log.id, (e) => e.name + ': ' + e.message);
    console.log(JSON.stringify({ outcome, loaded }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { outcome: string; loaded: string[] };
}

/** The loaded files of this package's build that hold Zod's code. */
const zodFiles = (loaded: string[]) =>
  loaded
    .filter((url) => url.startsWith('file:') && fileURLToPath(url).startsWith(dist))
    .filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes('_zod'));

describe('a cold start', () => {
  it('reads a valid log without loading Zod or the multipart stack', async () => {
    const { outcome, loaded } = await coldGet(42);
    expect(outcome).toBe('log 42');
    expect(loaded.some((url) => url.includes('/undici/'))).toBe(true); // the request went out through undici
    expect(zodFiles(loaded)).toEqual([]);
    expect(loaded.filter((url) => /form-data-encoder|formdata-node|media-part/.test(url))).toEqual([]);
  });

  it('loads Zod for a first answer that is not a valid log, and names what is wrong', async () => {
    const { outcome, loaded } = await coldGet(43);
    expect(outcome).toMatch(/^ResponseValidationError: .*\n.*data\.sent_at: expected an ISO 8601 date-time/s);
    expect(zodFiles(loaded)).not.toEqual([]);
  });

  it("loads undici's Agent alone, not its fetch, WebSocket, caches and mocks", async () => {
    const { outcome, loaded } = await coldGet(42);
    expect(outcome).toBe('log 42');
    const undici = loaded.filter((url) => url.includes('/node_modules/undici/'));
    expect(undici.some((url) => url.endsWith('/undici/lib/dispatcher/agent.js'))).toBe(true);
    expect(undici.filter((url) => /\/undici\/index\.js$|\/lib\/(web|mock|cache)\//.test(url))).toEqual([]);
  });

  it('falls back to the whole of undici when its Agent is not where this version keeps it', async () => {
    for (const moved of ['undici/lib/dispatcher/agent.js', 'undici/lib/core/connect.js']) {
      const { outcome, loaded } = await coldGet(42, [moved]);
      expect(outcome, moved).toBe('log 42');
      expect(loaded.some((url) => url.endsWith('/node_modules/undici/index.js'))).toBe(true);
    }
  });
});
