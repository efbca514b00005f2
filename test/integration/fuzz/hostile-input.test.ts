/**
 * The hostile-input fuzzer: every endpoint called with Proxies whose traps throw, getters that
 * throw or change their answer, media sources that fail at a random byte, odd ids, and aborts at
 * random moments, against a server that answers well or badly. Each call must settle in time
 * (promptly after an abort) with a valid value, a MessagingError or the abort's own reason,
 * without stalling the loop, leaking a handle or letting anything go unhandled.
 *
 * A long soak: FUZZ_RUNS=2000 npx vitest run test/integration/fuzz (FUZZ_SEED replays a reported seed).
 */
import fc from 'fast-check';
import type { MessagingClient } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageLog } from '../../helpers/server.js';
import { answers, LOG_ID } from './arbitraries.js';
import { type CallSettings, ENDPOINT_NAMES, type EndpointName } from './endpoints.js';
import {
  type Answer,
  fuzzSettings,
  type HostileServer,
  type ProcessWatch,
  startHostileServer,
  watchProcess,
} from './harness.js';
import { build, buildMedia, type Hostility, hostileId, hostility, type MediaRecipe, mediaRecipe } from './inputs.js';
import { runCase, runTwiceIfStalled, warmUp } from './run-case.js';

const knobs = fuzzSettings(60);
const { seed, numRuns } = knobs;

let server: HostileServer;
let watch: ProcessWatch;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  watch?.stop();
  await server?.close();
});

/** A well-formed answer of the endpoint's shape, delivered (so waitForDelivery can end well too). */
function goodAnswer(endpoint: EndpointName, timing: Answer['timing']): Answer {
  const log = messageLog({ id: LOG_ID, delivery_status: 'delivered' });
  const list = endpoint === 'senderNumbers.list' || endpoint.startsWith('messages.list');
  return {
    informational: [],
    status: 200,
    statusLine: null,
    headers: [['content-type', 'application/json']],
    body: { kind: 'text', text: JSON.stringify({ data: list ? [log] : log }) },
    framing: 'length',
    timing,
    close: false,
  };
}

interface InputRecipe {
  readonly params: Hostility;
  readonly options: Hostility;
  readonly media: MediaRecipe;
  readonly id: unknown;
}

/** The endpoint's call with the recipe's hostile arguments. */
function hostileCall(endpoint: EndpointName, r: InputRecipe, s: CallSettings) {
  const options = build(
    { timeout: s.timeout, maxRetries: s.maxRetries, ...(s.signal ? { signal: s.signal } : {}) },
    r.options,
  );
  const sender = { sender_phone: '+15550000001', to_phone: '+15550000002' };
  const id = r.id as number;
  return (client: MessagingClient): Promise<unknown> => {
    switch (endpoint) {
      case 'me':
        return client.me(options);
      case 'subscription':
        return client.subscription(options);
      case 'usage':
        return client.usage(options);
      case 'senderNumbers.list':
        return client.senderNumbers.list(options);
      case 'contacts.lookup':
        return client.contacts.lookup(
          build({ phone: '+15550000002', sender_phone: '+15550000001' }, r.params) as never,
          options,
        );
      case 'messages.send text':
        return client.messages.send(build({ ...sender, type: 'text', content: 'fuzz' }, r.params) as never, options);
      case 'messages.send media':
        return client.messages.send(
          build({ ...sender, type: 'image', media: buildMedia(r.media) }, r.params) as never,
          options,
        );
      case 'messages.get':
        return client.messages.get(id, options);
      case 'messages.list':
        return Promise.resolve(client.messages.list(build({ page: 1 }, r.params) as never, options));
      case 'messages.list walk':
        return (async () => {
          const seen: unknown[] = [];
          for await (const item of client.messages.list(build({ page: 1 }, r.params) as never, options))
            seen.push(item);
          return seen;
        })();
      case 'waitForDelivery': {
        const poll = { timeout: s.waitTimeout, interval: s.interval, onUpdate: () => undefined };
        return client.waitForDelivery(
          id,
          build({ ...poll, ...(s.signal ? { signal: s.signal } : {}) }, r.options) as never,
        );
      }
    }
  };
}

describe(`hostile inputs (seed ${seed}, ${numRuns} runs; FUZZ_SEED / FUZZ_RUNS to change)`, () => {
  it('every endpoint settles in time with a valid value, a MessagingError or the abort reason', async () => {
    watch = watchProcess();
    await warmUp({ server, watch });
    const recipe = fc.record({
      params: hostility(['sender_phone', 'to_phone', 'type', 'content', 'media', 'phone', 'page']),
      options: hostility(['timeout', 'maxRetries', 'signal', 'interval', 'until', 'onUpdate']),
      media: mediaRecipe,
      id: hostileId,
    });
    const timing = fc.constantFrom<Answer['timing']>(
      { kind: 'now' },
      { kind: 'now' },
      { kind: 'drip', chunk: 64, delayMs: 5 },
      { kind: 'stall', at: 0.5 },
      { kind: 'early' },
    );
    const served = fc.oneof(
      { weight: 3, arbitrary: timing.map((t) => (endpoint: EndpointName) => [goodAnswer(endpoint, t)]) },
      { weight: 1, arbitrary: answers.map((planned) => () => planned) },
    );
    const abort = fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 600 }) },
      { weight: 1, arbitrary: fc.constant(-1) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINT_NAMES),
        recipe,
        served,
        abort,
        fc.integer({ min: 300, max: 600 }),
        async (endpoint, inputs, answersFor, abortAfterMs, timeout) => {
          const problems = await runTwiceIfStalled(() => {
            const controller = abortAfterMs === undefined ? undefined : new AbortController();
            const settings = {
              timeout,
              maxRetries: 0,
              waitTimeout: timeout,
              interval: 50,
              ...(controller ? { signal: controller.signal } : {}),
            };
            return runCase(
              { server, watch },
              {
                endpoint,
                answers: answersFor(endpoint),
                settings,
                abortAfterMs,
                controller,
                call: hostileCall(endpoint, inputs, settings),
              },
            );
          });
          expect(problems).toEqual([]);
        },
      ),
      knobs,
    );
  }, 600_000);
});
