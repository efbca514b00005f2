import { ValidationError } from 'tenant-messaging';
import { createSandbox, type LaneLimits, type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const ACME = '+15550001001';
const ACME_2 = '+15550001002';
const ACME_PENDING = '+15550001003';
const GLOBEX = '+15550002001';
const R1 = '+15551230001';
const R2 = '+15551230002';
const R3 = '+15551230003';
/** 23:37:05.250 UTC: a quarter of a second into a whole second, so aligned and ms windows differ. */
const START = Date.UTC(2026, 10, 22, 23, 37, 5, 250);

let sandbox: RunningSandbox;
let clock = START;

beforeAll(async () => {
  // A clock the tests move: the windows are exact, and nothing waits for real time to pass.
  sandbox = await startSandbox({ now: () => clock, requestLogCapacity: 64 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  clock = START;
  sandbox.reset();
  sandbox.setRateLimit(null);
  sandbox.setLaneLimits(null);
});

type Body = Record<string, unknown>;

/** A POST /messages over real HTTP (text to `to` from `from`, unless `body` says otherwise). */
async function send(from: string | number, to: string, body: Body = {}, key = 'tm_test_acme_full') {
  const tenant = typeof from === 'string' && from.startsWith('+1555000200') ? 'globex' : 'acme';
  const res = await fetch(`${sandbox.url}/t/${tenant}/api/v1/messages`, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-api-key': tenant === 'globex' ? 'tm_test_globex_full' : key,
    },
    body: JSON.stringify({
      ...(typeof from === 'number' ? { sender_number_id: from } : { sender_phone: from }),
      to_phone: to,
      type: 'text',
      content: 'Hi',
      ...body,
    }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Body };
}

/** A GET of the acme tenant over real HTTP. */
async function get(path: string) {
  const res = await fetch(`${sandbox.url}/t/acme/api/v1${path}`, {
    headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' },
  });
  await res.body?.cancel();
  return res.status;
}

/** Statuses of the sends, one after another. */
async function statuses(...sends: [string | number, string][]): Promise<number[]> {
  const out: number[] = [];
  for (const [from, to] of sends) out.push((await send(from, to)).status);
  return out;
}

/** The 429 of a lane: Laravel's body and headers, with the lane's limit. */
function expectRefusal(res: Awaited<ReturnType<typeof send>>, limit: number, windowEnd: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ message: 'Too Many Attempts.' });
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(res.headers.get('retry-after')).toBe(String(Math.max(1, Math.ceil((windowEnd - clock) / 1000))));
  expect(res.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil(windowEnd / 1000)));
}

/** The end of the whole-second window opened at `at`. */
const secondEnd = (at: number) => Math.floor(at / 1000) * 1000 + 1000;

describe('the sandbox lanes: per sender', () => {
  it('lets `perSecond` sends per sender number through per whole second, then 429s; others are unaffected', async () => {
    sandbox.setLaneLimits({ perSender: { perSecond: 2 } });
    expect(await statuses([ACME, R1], [ACME, R2])).toEqual([201, 201]);
    clock += 500;
    const refused = await send(ACME, R3);
    expectRefusal(refused, 2, secondEnd(START));
    expect(refused.headers.get('retry-after')).toBe('1');
    // Another number of the tenant, and another tenant's, have lanes of their own.
    expect(await statuses([ACME_2, R1], [ACME_2, R3], [GLOBEX, R1])).toEqual([201, 201, 201]);
    // The window ends at the next whole second (Laravel's decay in whole Unix seconds).
    clock = secondEnd(START) - 1;
    expect((await send(ACME, R3)).status).toBe(429);
    clock = secondEnd(START);
    expect(await statuses([ACME, R3], [ACME, R1], [ACME, R2])).toEqual([201, 201, 429]);
  });

  it('counts a send by sender_number_id and one by sender_phone of the same number together', async () => {
    const id = sandbox.tenants.acme?.senderNumbers.find((n) => n.phone === ACME)?.id ?? expect.unreachable();
    sandbox.setLaneLimits({ perSender: { perSecond: 2 } });
    expect(await statuses([id, R1], [ACME, R2], [id, R3], [ACME, R3])).toEqual([201, 201, 429, 429]);
    expect(sandbox.requestLog.senders()).toEqual([ACME]);
  });

  it('never counts a read, a 403 or a 422: only sends that passed validation', async () => {
    sandbox.setLaneLimits({ perSender: { perSecond: 1 }, perPair: { minInterval: 10_000 } });
    // GETs, one of them naming the sender: never counted.
    for (const path of [
      '/me',
      '/messages',
      `/contacts/lookup?phone=${encodeURIComponent(R1)}&sender_phone=${encodeURIComponent(ACME)}`,
    ]) {
      expect(await get(path)).toBe(200);
    }
    expect((await send(ACME, R1, {}, 'tm_test_acme_no_send')).status).toBe(403);
    expect((await send(ACME, R1, { type: undefined })).status).toBe(422); // no type
    expect((await send(ACME, R1, { content: 'x'.repeat(4097) })).status).toBe(422);
    expect((await send(ACME, '+15557650000')).status).toBe(422); // unreachable
    expect((await send(ACME_PENDING, R1)).status).toBe(422); // the number is not active yet
    sandbox.setMessageLimit('acme', 0);
    expect((await send(ACME, R1)).status).toBe(422); // over the plan's quota
    sandbox.setMessageLimit('acme', 1000);
    expect(await statuses([ACME, R1], [ACME, R2])).toEqual([201, 429]);
  });
});

describe('the sandbox lanes: per pair', () => {
  it('lets one send per (sender, recipient) through per `minInterval` ms from its first send', async () => {
    sandbox.setLaneLimits({ perPair: { minInterval: 250 } });
    expect((await send(ACME, R1)).status).toBe(201);
    clock += 100;
    // The same recipient without its `+`: one recipient.
    const refused = await send(ACME, '15551230001');
    expectRefusal(refused, 1, START + 250);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Another recipient of the sender, and the recipient from another sender, are other pairs.
    expect(await statuses([ACME, R2], [ACME_2, R1], [GLOBEX, R1])).toEqual([201, 201, 201]);
    clock = START + 249;
    expect((await send(ACME, R1)).status).toBe(429);
    clock = START + 250;
    expect(await statuses([ACME, R1], [ACME, R1])).toEqual([201, 429]);
    expect(sandbox.requestLog.minGap({ sender: ACME, recipient: R1 })).toBe(250);
    expect(sandbox.requestLog.minGap({ recipient: R1 })).toBe(0); // ACME_2 and globex at START + 100
  });

  it('with both lanes, a send counts in both or in neither; the refusal is the lane that frees last', async () => {
    sandbox.setLaneLimits({ perSender: { perSecond: 2 }, perPair: { minInterval: 1000 } });
    expect((await send(ACME, R1)).status).toBe(201);
    expectRefusal(await send(ACME, R1), 1, START + 1000); // the pair's lane: not counted by the sender's
    expect((await send(ACME, R2)).status).toBe(201);
    expectRefusal(await send(ACME, R3), 2, secondEnd(START)); // the sender's lane
    // Both full: the pair's window (ends at START + 1000) outlasts the sender's (the next second).
    expectRefusal(await send(ACME, R1), 1, START + 1000);
    clock = secondEnd(START);
    expect(await statuses([ACME, R3], [ACME, R1])).toEqual([201, 429]);
    // The pair's window was opened by its send at START + 750, not by its refusal at START.
    clock = START + 1000;
    expectRefusal(await send(ACME, R3), 1, START + 1750);
    expect((await send(ACME, R1)).status).toBe(201);
  });
});

describe('the sandbox lanes: with the key-wide limit, switched off, refused values', () => {
  it('are checked after the key-wide throttle, which counts the sends they refuse', async () => {
    sandbox.setRateLimit({ perSecond: 4 });
    sandbox.setLaneLimits({ perSender: { perSecond: 1 } });
    const keyHeaders = (res: Awaited<ReturnType<typeof send>>) => [
      res.status,
      res.headers.get('x-ratelimit-limit'),
      res.headers.get('x-ratelimit-remaining'),
    ];
    expect(keyHeaders(await send(ACME, R1))).toEqual([201, '4', '3']);
    // A lane's 429 keeps its own headers: they say fewer remain than the key's (ThrottleRequests).
    expectRefusal(await send(ACME, R2), 1, secondEnd(START));
    expect(keyHeaders(await send(ACME_2, R2))).toEqual([201, '4', '1']);
    expectRefusal(await send(ACME, R3), 1, secondEnd(START));
    // The key's 4 requests went on two sends and two lane refusals: the key-wide 429 comes first now.
    expectRefusal(await send(ACME_2, R3), 4, secondEnd(START));
  });

  it('setLaneLimits(null) turns them off; a bad value is refused and keeps the lanes as they were', async () => {
    sandbox.setLaneLimits({ perSender: { perSecond: 1 } });
    expect(await statuses([ACME, R1], [ACME, R2])).toEqual([201, 429]);
    const bad: unknown[] = [
      { perSender: { perSecond: 0 } },
      { perSender: { perSecond: 1.5 } },
      { perSender: { perSecond: '2' } },
      { perSender: {} },
      { perSender: 5 },
      { perSender: { perSecond: 1, burst: 2 } },
      { perPair: { minInterval: -1 } },
      { perPair: { minInterval: Number.POSITIVE_INFINITY } },
      { perRecipient: { minInterval: 1000 } },
      'fast',
      [],
    ];
    for (const limits of bad) {
      expect(() => sandbox.setLaneLimits(limits as LaneLimits), JSON.stringify(limits)).toThrow(ValidationError);
    }
    expect(() => sandbox.setLaneLimits({ perPair: { minInterval: 0 } })).toThrow(
      /laneLimits\.perPair\.minInterval: must be an integer >= 1, got 0/,
    );
    expect(() => sandbox.setLaneLimits({ perSender: { perSecond: 2, perMinute: 1 } } as LaneLimits)).toThrow(
      /laneLimits\.perSender\.perMinute: is not an option of laneLimits\.perSender/,
    );
    expect(() => sandbox.setLaneLimits({ perSender: { perSecond: 0 } })).toThrow(
      /pass \{ perSender\?: \{ perSecond: n \}, perPair\?: \{ minInterval: ms \} \} with integers >= 1, or null/,
    );
    expect((await send(ACME, R3)).status).toBe(429); // the lanes as they were
    sandbox.setLaneLimits(null);
    expect(await statuses([ACME, R3], [ACME, R3], [ACME, R3])).toEqual([201, 201, 201]);
    // The option of createSandbox / startSandbox, checked the same way.
    expect(() => createSandbox({ laneLimits: { perSender: { perSecond: -2 } } })).toThrow(ValidationError);
    const fresh = createSandbox({ laneLimits: { perPair: { minInterval: 1000 } } });
    const post = () =>
      fresh.handle(
        new Request(`${fresh.tenants.acme.baseUrl}/api/v1/messages`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': 'tm_test_acme_full' },
          body: JSON.stringify({ sender_phone: ACME, to_phone: R1, type: 'text', content: 'Hi' }),
        }),
      );
    expect([(await post()).status, (await post()).status]).toEqual([201, 429]);
  });

  it('reset() forgets the lane windows and keeps the lane limits', async () => {
    sandbox.setLaneLimits({ perPair: { minInterval: 10_000 } });
    expect(await statuses([ACME, R1], [ACME, R1])).toEqual([201, 429]);
    sandbox.reset();
    expect(await statuses([ACME, R1], [ACME, R1])).toEqual([201, 429]);
  });
});

describe('the request log, per sender and recipient', () => {
  it('records the sender number and the recipient of every stored send, and only of those', async () => {
    sandbox.setLaneLimits({ perPair: { minInterval: 300 } });
    const id = sandbox.tenants.acme?.senderNumbers.find((n) => n.phone === ACME_2)?.id ?? expect.unreachable();
    expect(await get('/me')).toBe(200);
    expect((await send(ACME, R1, { type: 'sms' })).status).toBe(422);
    const plan: [number, string | number, string, number][] = [
      [0, ACME, R1, 201],
      [100, ACME, R1, 429],
      [100, ACME, R2, 201],
      [120, id, '15551230001', 201],
      [300, ACME, R1, 201],
      [400, GLOBEX, R3, 201],
      [450, ACME, R2, 201],
    ];
    for (const [at, from, to, status] of plan) {
      clock = START + at;
      expect((await send(from, to)).status, `${from} -> ${to} at ${at}`).toBe(status);
    }
    const log = sandbox.requestLog;
    // Every request the key let through, the 422 included; a lane's 429 is not recorded.
    expect(log.acceptedAt({ route: 'POST /messages' })).toHaveLength(7);
    expect(log.acceptedAt({ sender: ACME })).toEqual([START, START + 100, START + 300, START + 450]);
    expect(log.senders()).toEqual([ACME, ACME_2, GLOBEX]);
    expect(log.senders({ tenant: 'acme' })).toEqual([ACME, ACME_2]);
    expect(log.recipients()).toEqual([R1, R2, R3]);
    expect(log.recipients({ sender: ACME })).toEqual([R1, R2]);
    expect(log.recipients({ sender: '15550001002' })).toEqual([R1]);
    expect(log.maxInWindow(1000, { route: 'POST /messages', sender: ACME })).toBe(4);
    expect(log.maxInWindow(200, { sender: ACME })).toBe(2);
    expect(log.minGap({ recipient: R1 })).toBe(120); // ACME at 0, ACME_2 at 120
    expect(log.minGap({ recipient: '15551230001', sender: ACME })).toBe(300);
    expect(log.minGap({ recipient: R2 })).toBe(350);
    expect(log.minGap({ recipient: R3 })).toBe(Number.POSITIVE_INFINITY);
    expect(log.minGap({ recipient: '+15559999999' })).toBe(Number.POSITIVE_INFINITY);
    expect(log.acceptedAt({ sender: '+15559999999' })).toEqual([]);
    expect(log.acceptedAt({ sender: R1 })).toEqual([]); // a recipient, never a sender
  });

  it('keeps them in its ring: what it overwrote is gone, so memory stays bounded', async () => {
    const small = await startSandbox({ requestLogCapacity: 3 });
    try {
      for (let n = 1; n <= 5; n++) {
        const res = await fetch(`${small.url}/t/acme/api/v1/messages`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': 'tm_test_acme_full' },
          body: JSON.stringify({ sender_phone: ACME, to_phone: `+1555123000${n}`, type: 'text', content: 'Hi' }),
        });
        expect(res.status).toBe(201);
        await res.body?.cancel();
      }
      const log = small.requestLog;
      expect([log.total, log.size]).toEqual([5, 3]);
      expect(log.recipients()).toEqual(['+15551230003', '+15551230004', '+15551230005']);
      expect(log.acceptedAt({ recipient: '+15551230001' })).toEqual([]);
      small.reset();
      expect([log.total, log.senders(), log.recipients()]).toEqual([0, [], []]);
    } finally {
      await small.close();
    }
  });
});
