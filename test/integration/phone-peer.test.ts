/**
 * libphonenumber-js is an optional peer dependency (issue 37), loaded only by recipient pacing
 * (`rateLimit.perRecipient`) and `'recipient'` quiet hours. Without it, what needs it fails with a
 * MessagingError that names the package and its install command: a queue or a worker when it is
 * made, a client at its first paced send (its load is asynchronous), before anything goes out;
 * everything else works. Runs the built package (`npm run build` first; `npm test` does) in a
 * child process whose module hooks refuse libphonenumber-js, as in a project without it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MessagingError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requirePhonePeer } from '../../src/bullmq/schedule/phone-peer.js';
import { root } from '../helpers/npm.js';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const INSTALL = 'npm install libphonenumber-js';

/**
 * Refuses libphonenumber-js to import and require (and require.resolve), as Node would without
 * it. The resolve hook covers import and require; `require.resolve` is refused through CommonJS's
 * own resolver too, since Node 22's hooks do not see it (Node 24's do).
 */
const REFUSE = `import Module, { registerHooks } from 'node:module';
const PEER = /^libphonenumber-js(\\/|$)/;
registerHooks({
  resolve(specifier, context, next) {
    if (PEER.test(specifier))
      throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
    return next(specifier, context);
  },
});
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (PEER.test(request)) throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  return resolveFilename.call(this, request, ...rest);
};
`;

let work: string;
let server: TestServer;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-phone-peer-'));
  await writeFile(join(work, 'refuse.mjs'), REFUSE);
  server = await startServer((_req, res) => json(res, 201, { data: messageLog() }));
});

afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

/** Runs `code` in a fresh Node without libphonenumber-js (ES module, or CommonJS); gives its output. */
async function withoutPhonePeer(code: string, type: 'module' | 'commonjs'): Promise<string> {
  const args = ['--import', join(work, 'refuse.mjs'), `--input-type=${type}`, '-e', code];
  // A timeout: a refused option must end the process, never leave it hanging on a connection.
  const { stdout } = await run(process.execPath, args, { cwd: root, timeout: 20_000 });
  return stdout.trim();
}

/** A paced send and an unpaced one; prints what each gave. `load` binds MessagingClient and MessagingError. */
const clientScript = (load: string) => `${load}
  const text = { sender_phone: '+15550001001', to_phone: '+15551230001', type: 'text', content: 'Hi' };
  const options = { baseUrl: ${JSON.stringify(server.url)}, apiKey: 'tm_test_peer', logLevel: 'off', maxRetries: 0 };
  const paced = new MessagingClient({ ...options, rateLimit: { perRecipient: { minInterval: 10 } } });
  const said = (e) => e instanceof MessagingError && e.message.includes('rateLimit.perRecipient') && e.message.includes(${JSON.stringify(INSTALL)});
  const first = await paced.messages.send(text).then(() => 'sent', said);
  const again = await paced.messages.send(text).then(() => 'sent', said);
  const many = [];
  for await (const result of paced.messages.sendMany([text, text])) many.push(result.status === 'failed' && said(result.error));
  const plain = await new MessagingClient(options).messages.send(text).then((log) => typeof log.id);
  console.log(JSON.stringify({ first, again, many, plain }));`;

describe('without libphonenumber-js installed', () => {
  it.each([
    ['module', `import { MessagingClient, MessagingError } from 'tenant-messaging';`],
    ['commonjs', `(async () => { const { MessagingClient, MessagingError } = require('tenant-messaging');`],
  ] as const)(
    'a client with perRecipient says what to install at its first send (%s); nothing is sent',
    async (type, load) => {
      const before = server.requests.length;
      const code = type === 'module' ? clientScript(load) : `${clientScript(load)} })()`;
      expect(JSON.parse(await withoutPhonePeer(code, type))).toEqual({
        first: true,
        again: true,
        many: [true, true],
        plain: 'number',
      });
      // Only the unpaced client's send reached the service.
      expect(server.requests.length - before).toBe(1);
    },
  );

  it("a queue with quietHours timeZone 'recipient' is refused when it is made, before it connects", async () => {
    const code = `import { MessagingQueue } from 'tenant-messaging/bullmq';
      import { MessagingError } from 'tenant-messaging';
      const quietHours = { start: '21:00', end: '08:00', timeZone: 'recipient' };
      try {
        new MessagingQueue({ name: 'sms', connection: { host: '127.0.0.1', port: 9 }, quietHours });
        console.log('made');
      } catch (e) {
        console.log(e instanceof MessagingError && e.message.includes("timeZone: 'recipient'") && e.message.includes(${JSON.stringify(INSTALL)}));
      }`;
    expect(await withoutPhonePeer(code, 'module')).toBe('true');
  });

  it('a worker with rateLimit.perRecipient is refused when it is made, before any connection (the process ends by itself)', async () => {
    const code = `import { MessagingWorker } from 'tenant-messaging/bullmq';
      import { MessagingClient, MessagingError } from 'tenant-messaging';
      const client = new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'tm_test_peer' });
      const rateLimit = { requestsPerSecond: 10, perRecipient: { minInterval: 100 } };
      try {
        new MessagingWorker({ name: 'sms', client, connection: { host: '127.0.0.1', port: 9 }, rateLimit });
        console.log('made');
      } catch (e) {
        console.log(e instanceof MessagingError && e.message.includes('perRecipient') && e.message.includes(${JSON.stringify(INSTALL)}));
      }
      // No process.exit: the worker is refused before it opens any connection, so the process ends by itself.`;
    expect(await withoutPhonePeer(code, 'module')).toBe('true');
  });
});

describe('requirePhonePeer', () => {
  const refused = (code: string) => () => {
    throw Object.assign(new Error('not here'), { code });
  };

  it('turns a missing module into a MessagingError that names the option and the install command', () => {
    for (const code of ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND']) {
      const error = (() => {
        try {
          requirePhonePeer('the option', refused(code));
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as Error).message).toMatch(/^the option needs libphonenumber-js .*npm install libphonenumber-js/);
      expect((error as Error).cause).toMatchObject({ code });
    }
  });

  it('throws any other failure as it is, and passes when the package resolves', () => {
    expect(() => requirePhonePeer('the option', refused('EACCES'))).toThrow('not here');
    expect(() => requirePhonePeer('the option')).not.toThrow();
  });
});
