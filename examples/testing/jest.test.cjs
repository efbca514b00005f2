/**
 * Testing code that waits, with jest's fake timers: a reminder that escalates when it is not read
 * in 10 minutes, and a reminder planned for 09:00 tomorrow across a daylight-saving change. The
 * SDK's waits and the in-process sandbox follow the fake clock: nothing waits for real.
 * CommonJS, so jest runs it without a transform.
 *
 *   npx jest examples/testing/jest.test.cjs
 */
const { DeliveryTimeoutError, MessagingClient } = require('tenant-messaging');
const { createSandbox, SANDBOX_PHONES } = require('tenant-messaging/sandbox');

const MINUTE = 60_000;
const SENDER = '+15550001001';
const SUPERVISOR = '+15550009999';

/** Your application code: remind, and tell a supervisor when the reminder is not read in 10 minutes. */
async function remindOrEscalate(client, to) {
  const sent = await client.messages.send({
    sender_phone: SENDER,
    to_phone: to,
    type: 'text',
    content: 'Your appointment is at 9:00 tomorrow',
  });
  try {
    await client.waitForDelivery(sent.id, { until: 'read', interval: MINUTE, timeout: 10 * MINUTE });
    return 'read';
  } catch (error) {
    if (!(error instanceof DeliveryTimeoutError)) throw error;
    await client.messages.send({
      sender_phone: SENDER,
      to_phone: SUPERVISOR,
      type: 'text',
      content: `Unread after 10 minutes: ${to}`,
    });
    return 'escalated';
  }
}

/** Your application code: 09:00 tomorrow on the wall clock of `timeZone`, as an instant. */
function nineTomorrow(timeZone, now = new Date()) {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, dateStyle: 'short' }).format(now.getTime() + 86_400_000);
  const offsetAt = (ms) => {
    const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(ms);
    const [, sign, hours, minutes] =
      /GMT([+-])(\d\d):(\d\d)/.exec(name.find((p) => p.type === 'timeZoneName')?.value ?? '') ?? [];
    return sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * MINUTE;
  };
  const wall = Date.parse(`${day}T09:00:00Z`);
  return new Date(wall - offsetAt(wall - offsetAt(wall)));
}

describe('remindOrEscalate', () => {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: MINUTE, readAfterMs: 4 * MINUTE } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });

  beforeEach(() => {
    jest.useFakeTimers();
    sandbox.reset();
    sandbox.requestLog.reset();
  });
  afterEach(() => jest.useRealTimers());

  test('does not escalate a reminder read within 10 minutes', async () => {
    const outcome = remindOrEscalate(client, SANDBOX_PHONES.reads);
    await jest.advanceTimersByTimeAsync(10 * MINUTE);
    await expect(outcome).resolves.toBe('read');
    expect(sandbox.requestLog.recipients()).toEqual([SANDBOX_PHONES.reads]);
  });

  test('escalates at 10 minutes, exactly, when the reminder is not read', async () => {
    const outcome = remindOrEscalate(client, SANDBOX_PHONES.neverReads);
    await jest.advanceTimersByTimeAsync(10 * MINUTE);
    await expect(outcome).resolves.toBe('escalated');
    const [reminder, escalation] = sandbox.requestLog.acceptedAt({ route: 'POST /messages' });
    expect(escalation - reminder).toBe(10 * MINUTE);
  });
});

describe('nineTomorrow, across the change to daylight-saving time', () => {
  afterEach(() => jest.useRealTimers());

  test('New York springs forward on 8 March 2026: 09:00 is 13:00 UTC that day, 14:00 UTC the day before', () => {
    jest.useFakeTimers({ now: new Date('2026-03-07T01:00:00Z') }); // 20:00 on 6 March in New York
    expect(nineTomorrow('America/New_York').toISOString()).toBe('2026-03-07T14:00:00.000Z');
    jest.setSystemTime(new Date('2026-03-08T01:00:00Z')); // 20:00 on 7 March, the night of the change
    expect(nineTomorrow('America/New_York').toISOString()).toBe('2026-03-08T13:00:00.000Z');
  });
});
