/**
 * One simulated hour of a client's traffic against the in-process sandbox, under whatever fake
 * timers the calling test installed: a send; a waitForDelivery that ends when the message is read,
 * 30 fake minutes later; five sends paced a minute apart to one person; a 429 with Retry-After: 30.
 * It checks the sandbox's request log against what real time would have made, request by request.
 *
 * Plain CommonJS with the SDK passed in, so that vitest, jest and node:test all run this one file
 * (jest runs CommonJS without a transform; the others import it). Types: simulated-hour.d.cts.
 */
'use strict';
const assert = require('node:assert/strict');

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SENDER = '+15550001001';
/** Each recipient once: the sends of one phase never share a lane with another's. */
const PACED_TO = '+15551230001';
const THROTTLED_TO = '+15551230002';
const POLL = 'GET /messages/{messageLog}';
const SEND = 'POST /messages';

/**
 * Settles `promise` by advancing fake time in `step` ms moves, and says how much fake time it took.
 * A hang (a timer that re-arms itself, a wait on a timer nobody advances) fails after `limit`.
 */
async function settle(promise, advance, step, limit = 2 * HOUR) {
  let done = false;
  const watched = promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  let spent = 0;
  while (!done) {
    if (spent >= limit)
      throw new Error(`not settled after ${limit / MINUTE} fake minutes: a wait does not follow the fake clock`);
    await advance(step);
    spent += step;
  }
  await watched;
  return { value: await promise, spent };
}

/**
 * The waits waitForDelivery makes, as its poll policy sets them: `interval` times 1.5 for each poll
 * that saw no change (at most 8 times), plus up to 20% jitter. Returns [least, most] of each gap.
 */
function pollGapBounds(statuses, interval) {
  const bounds = [];
  let unchanged = 0;
  for (let i = 1; i < statuses.length; i++) {
    unchanged = i === 1 || statuses[i - 1] !== statuses[i - 2] ? 0 : unchanged + 1;
    const base = interval * Math.min(1.5 ** unchanged, 8);
    bounds.push([base, base * 1.2]);
  }
  return bounds;
}

/**
 * Runs the hour. `advance(ms)` moves the runner's fake clock and lets promises run; `step` is the
 * move `settle` makes (a runner whose tick sets the clock to the end of the move, node:test's,
 * sees every event on a multiple of it).
 */
async function simulatedHour({ MessagingClient, createSandbox, SANDBOX_PHONES, advance, step }) {
  const deliveredAfterMs = 5 * MINUTE;
  const readAfterMs = 30 * MINUTE;
  const sandbox = createSandbox({ delivery: { deliveredAfterMs, readAfterMs } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });
  // The campaign's sends go through per-recipient lanes: a minute between two sends to one person.
  const campaign = client.withOptions({ rateLimit: { perRecipient: { minInterval: MINUTE } } });
  const send = (to, content, by = client) =>
    by.messages.send({ sender_phone: SENDER, to_phone: to, type: 'text', content });
  const start = Date.now();
  const log = sandbox.requestLog;

  // A call with nothing to wait for settles with no advance at all (where microtasks are real).
  const first = await send(SANDBOX_PHONES.reads, 'Your order shipped');
  assert.equal(Date.now(), start, 'a plain send took fake time');
  assert.deepEqual(log.acceptedAt(), [start]);

  // waitForDelivery: polls a minute apart and slower while nothing changes, until read at 30 minutes.
  const waited = await settle(
    client.waitForDelivery(first.id, { until: 'read', interval: MINUTE, timeout: 2 * HOUR }),
    advance,
    step,
  );
  assert.equal(waited.value.delivery_status, 'read');
  const polls = log.acceptedAt({ route: POLL });
  const statusAt = (at) => (at - start >= readAfterMs ? 'read' : at - start >= deliveredAfterMs ? 'delivered' : 'sent');
  const statuses = polls.map(statusAt);
  // Exactly the polls real time makes: every one before the read saw it unread, the last saw it read.
  assert.equal(statuses.indexOf('read'), polls.length - 1, `polls at ${polls.map((at) => at - start)}`);
  assert.equal(polls[0], start, 'the first poll is at once');
  const gaps = polls.slice(1).map((at, i) => at - polls[i]);
  pollGapBounds(statuses, MINUTE).forEach(([least, most], i) => {
    // + step: a runner that moves the clock by whole steps shows each poll at the end of its step.
    assert.ok(
      gaps[i] >= least && gaps[i] <= Math.ceil(most) + step,
      `poll gap ${i + 1}: ${gaps[i]} not in [${least}, ${most}]`,
    );
  });

  // Five sends to one person, paced a minute apart by the client's per-recipient lane.
  const pacedFrom = Date.now();
  const paced = Promise.all([1, 2, 3, 4, 5].map((n) => send(PACED_TO, `Reminder ${n}`, campaign)));
  await settle(paced, advance, step);
  const pacedAt = log.acceptedAt({ recipient: PACED_TO });
  assert.deepEqual(
    pacedAt.map((at) => at - pacedFrom),
    [0, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE],
  );

  // A 429 with Retry-After: 30, retried by the client 30 fake seconds later, once. Another process
  // of the same key opens the minute's window (the client itself would wait for the window instead:
  // it reads the rate headers of its own answers).
  sandbox.setRateLimit(1);
  const before = Date.now();
  const otherProcess = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });
  await otherProcess.messages.send({
    sender_phone: SENDER,
    to_phone: THROTTLED_TO,
    type: 'text',
    content: 'Opens the window',
  });
  await advance(30_000);
  const throttledFrom = Date.now();
  await settle(send(THROTTLED_TO, 'Throttled, then retried'), advance, step);
  sandbox.setRateLimit(null);
  assert.deepEqual(
    log.acceptedAt({ recipient: THROTTLED_TO }).map((at) => at - before),
    [0, 60_000],
  );
  assert.equal(throttledFrom - before, 30_000);

  // The rest of the hour: nothing is left waiting, so nothing more is sent or polled.
  const total = log.total;
  const left = HOUR - (Date.now() - start);
  if (left > 0) await advance(left);
  assert.equal(log.total, total, 'a request after the traffic ended');
  const counts = sandbox.counters.requests;
  // 1 send, the polls, 5 paced sends, 2 throttled sends and the one retry (the 429 is not logged).
  assert.deepEqual(counts, { [SEND]: 1 + 5 + 3, [POLL]: polls.length });
  assert.equal(total, 1 + polls.length + 5 + 2);
  return {
    fakeMinutes: (Date.now() - start) / MINUTE,
    polls: polls.length,
    pollGapsMs: gaps,
    requests: counts,
  };
}

module.exports = { simulatedHour, settle, MINUTE, HOUR };
