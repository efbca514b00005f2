/**
 * `--http`'s session cap over real loopback HTTP, in process, on an injected clock (serveHttp takes
 * the session table's `now`): a client between its `initialize` answer and its `initialized`
 * notification is never evicted, however long it takes; at the cap a new client gets 503 with
 * `Retry-After` instead, and the slow client then finishes initializing and calls a tool on the
 * session it was given (no 404). The reclaim rules themselves are sessions.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServing, serveHttp } from '../../src/serve/http.js';
import type { Log } from '../../src/shell/log.js';
import { createToolbox } from '../../src/tools/toolbox.js';
import { fixtureForFile } from './mcp-fixture.js';

const fx = fixtureForFile();
const TOKEN = 'http-sessions-token-0123456789';
const MINUTE = 60_000;
const QUIET: Log = { debug: undefined, info: undefined, warn: undefined, error: undefined };

let clock = 0;
let serving: HttpServing;

beforeAll(async () => {
  const toolbox = createToolbox({ client: fx.client() });
  serving = await serveHttp({ host: '127.0.0.1', port: 0 }, TOKEN, toolbox, { log: QUIET, max: 2, now: () => clock });
});
afterAll(() => serving?.close());

/** One JSON-RPC message POSTed to the endpoint, on `session` when given; the answer read whole. */
async function post(message: object, session?: string) {
  const response = await fetch(serving.url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(session === undefined ? {} : { 'Mcp-Session-Id': session }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

const initialize = () =>
  post({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slow', version: '1.0.0' } },
  });

/** Initializes a session; `finish`: sends its `initialized` notification too. Its id. */
async function open(finish: boolean): Promise<string> {
  const answer = await initialize();
  expect(answer.status, answer.body).toBe(200);
  const session = answer.headers.get('mcp-session-id') as string;
  if (finish) expect((await post({ method: 'notifications/initialized' }, session)).status).toBe(202);
  return session;
}

describe('--http at the session cap', () => {
  it('never evicts a session whose client has not sent `initialized` yet: 503 with Retry-After, then that client carries on', async () => {
    const slow = await open(false);
    clock += 10 * MINUTE;
    const recent = await open(true);
    clock += MINUTE / 2;
    // Full: `slow` still initializing (ten minutes on), `recent` used 30 s ago. Neither goes.
    const refused = await initialize();
    expect(refused.status, refused.body).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.body).toContain('still initializing');
    // The slow client finishes and works, on the session it was given.
    expect((await post({ method: 'notifications/initialized' }, slow)).status).toBe(202);
    const listed = await post({ id: 2, method: 'tools/list' }, slow);
    expect(listed.status, listed.body).toBe(200);
    expect(listed.body).toContain('get_message');
    expect((await post({ id: 3, method: 'tools/list' }, recent)).status).toBe(200);
    // Once neither was used for a minute, the least recently used makes room.
    clock += MINUTE;
    expect((await initialize()).status).toBe(200);
    expect((await post({ id: 4, method: 'tools/list' }, slow)).status).toBe(404);
    expect((await post({ id: 5, method: 'tools/list' }, recent)).status).toBe(200);
  });
});
