/**
 * verifyWebhook against the reference implementation (`standardwebhooks`): any body, id, secret
 * and timestamp it signs is accepted, anything it refuses (tampered bodies, ids, timestamps and
 * signatures, stale or future timestamps, malformed headers) is refused, and what signWebhook
 * signs the reference accepts. A property test each, with fast-check.
 */
import fc from 'fast-check';
import { WebhookVerificationError as ReferenceVerificationError, Webhook } from 'standardwebhooks';
import { ValidationError } from 'tenant-messaging';
import { signWebhook, verifyWebhook, WebhookVerificationError } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The verifier reads the clock when no `now` is given: a fake one, still at NOW (the unit tier
// reads no real clock, and a property's run may take longer than any tolerance).
const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterAll(() => {
  vi.useRealTimers();
});

const secretOf = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString('base64')}`;
const secrets = fc.uint8Array({ minLength: 1, maxLength: 64 }).map(secretOf);
const ids = fc.string({ minLength: 1, maxLength: 40 }).filter((id) => id.trim() !== '' && !/[\r\n]/.test(id));
/** The ids signWebhook signs: those a header carries unchanged (no space at either end). */
const headerIds = ids.map((id) => id.trim());
const bodies = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.json({ maxDepth: 3 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
);

/** Whether the reference accepts the signature (its JSON parsing off: only the signature is judged). */
function referenceAccepts(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers, { jsonParse: false });
    return true;
  } catch (error) {
    if (error instanceof ReferenceVerificationError) return false;
    throw error;
  }
}

/** Whether verifyWebhook accepts the signature (a signed body that is not JSON is refused as 'bad-body' after it). */
async function oursAccepts(secret: string, body: string, headers: Record<string, string>): Promise<boolean> {
  try {
    await verifyWebhook(body, headers, secret);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason === 'bad-body';
    throw error;
  }
}

describe('verifyWebhook agrees with the reference implementation', () => {
  it('accepts whatever the reference signs, now or within the tolerance', async () => {
    await fc.assert(
      fc.asyncProperty(secrets, ids, bodies, fc.integer({ min: -290, max: 290 }), async (secret, id, body, skew) => {
        const timestamp = new Date(NOW + skew * 1000);
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
        };
        expect(await oursAccepts(secret, body, headers)).toBe(true);
        expect(referenceAccepts(secret, body, headers)).toBe(true);
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it('what signWebhook signs, the reference accepts', async () => {
    await fc.assert(
      fc.asyncProperty(secrets, headerIds, bodies, async (secret, id, body) => {
        const headers = await signWebhook(body, secret, { id });
        expect(referenceAccepts(secret, body, { ...headers })).toBe(true);
        expect(headers['webhook-signature']).toBe(
          new Webhook(secret).sign(id, new Date(Number(headers['webhook-timestamp']) * 1000), body),
        );
      }),
      { numRuns: 200, seed: 22 },
    );
  });

  it('refuses what the reference refuses: tampered bodies, ids, timestamps, signatures and secrets', async () => {
    const tamper = fc.constantFrom('body', 'id', 'timestamp', 'signature', 'secret', 'version');
    await fc.assert(
      fc.asyncProperty(
        secrets,
        secrets,
        ids,
        bodies,
        tamper,
        fc.string({ minLength: 1, maxLength: 5 }),
        async (secret, other, id, body, what, extra) => {
          const now = new Date(NOW);
          const headers: Record<string, string> = {
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': new Webhook(secret).sign(id, now, body),
          };
          let sent = body;
          let key = secret;
          if (what === 'body') sent = `${body}${extra}`;
          if (what === 'id') headers['webhook-id'] = `${id}${extra}`;
          if (what === 'timestamp') headers['webhook-timestamp'] = String(Number(headers['webhook-timestamp']) - 1);
          if (what === 'signature') headers['webhook-signature'] = `v1,${Buffer.from(extra).toString('base64')}`;
          if (what === 'secret') key = other;
          if (what === 'version')
            headers['webhook-signature'] = (headers['webhook-signature'] as string).replace('v1,', 'v2,');
          const reference = referenceAccepts(key, sent, headers);
          expect(await oursAccepts(key, sent, headers)).toBe(reference);
        },
      ),
      { numRuns: 400, seed: 23 },
    );
  });

  it('agrees on any timestamp header and any signature header', async () => {
    const stamps = fc.oneof(
      fc.integer({ min: -1_000, max: 1_000 }).map((s) => String(Math.floor(NOW / 1000) + s)),
      fc.string({ maxLength: 12 }),
      fc.integer({ min: -400, max: 400 }).map((s) => `${Math.floor(NOW / 1000) + s}xyz`),
    );
    await fc.assert(
      fc.asyncProperty(
        secrets,
        ids,
        bodies,
        stamps,
        fc.string({ maxLength: 60 }),
        fc.boolean(),
        async (secret, id, body, stamp, noise, keepReal) => {
          const parsed = Number.parseInt(stamp, 10);
          const real = Number.isNaN(parsed) ? '' : new Webhook(secret).sign(id, new Date(parsed * 1000), body);
          const headers = {
            'webhook-id': id,
            'webhook-timestamp': stamp,
            'webhook-signature': keepReal ? `${noise} ${real}` : noise,
          };
          expect(await oursAccepts(secret, body, headers)).toBe(referenceAccepts(secret, body, headers));
        },
      ),
      { numRuns: 400, seed: 24 },
    );
  });
});

describe('verifyWebhook', () => {
  const secret = secretOf(new Uint8Array(32).fill(7));
  const event = {
    type: 'message.read',
    timestamp: '2026-11-25T04:00:00.000Z',
    data: { id: 'order-1', log_id: 7, status: 'read' },
  };
  const body = JSON.stringify(event);

  it('returns the event; takes Headers, or a record with names in any case, and the body as bytes', async () => {
    const signed = await signWebhook(body, secret, { id: 'evt_1' });
    expect(await verifyWebhook(body, new Headers({ ...signed }), secret)).toEqual(event);
    const shouting = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verifyWebhook(new TextEncoder().encode(body), shouting, secret)).toEqual(event);
  });

  it('accepts a rotated secret: any of several signatures', async () => {
    const old = secretOf(new Uint8Array(32).fill(1));
    const byOld = await signWebhook(body, old, { id: 'evt_2' });
    const byNew = await signWebhook(body, secret, {
      id: 'evt_2',
      timestamp: new Date(Number(byOld['webhook-timestamp']) * 1000),
    });
    const both = { ...byNew, 'webhook-signature': `${byOld['webhook-signature']} ${byNew['webhook-signature']}` };
    expect(await verifyWebhook(body, both, secret)).toEqual(event);
    expect(await verifyWebhook(body, both, old)).toEqual(event);
  });

  it('says why it refuses, and never quotes the secret', async () => {
    const signed = await signWebhook(body, secret, { id: 'evt_3', timestamp: new Date(NOW - 600_000) });
    const reasons: string[] = [];
    for (const [b, h, options] of [
      [body, signed, {}],
      [body, signed, { tolerance: 900 }],
      [`${body} `, { ...signed }, { tolerance: 900 }],
      [body, { 'webhook-id': 'x' }, {}],
      [body, { ...signed, 'webhook-timestamp': 'soon' }, {}],
      [body, signed, { tolerance: 10, now: new Date(NOW - 3_600_000) }],
      ['not json', await signWebhook('not json', secret, { id: 'evt_4' }), {}],
    ] as const) {
      try {
        await verifyWebhook(b, h, secret, options);
        reasons.push('accepted');
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as Error).message).not.toContain(secret.slice(6));
        reasons.push((error as WebhookVerificationError).reason);
      }
    }
    expect(reasons).toEqual([
      'stale-timestamp',
      'accepted',
      'bad-signature',
      'missing-header',
      'malformed-header',
      'future-timestamp',
      'bad-body',
    ]);
  });

  it('a secret that is not whsec_ base64 is a ValidationError that does not quote it', async () => {
    for (const bad of ['', 'whsec_', 'whsec_not base64!', 'plain-password']) {
      const error = await verifyWebhook(body, {}, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      if (bad.length > 6) expect((error as Error).message).not.toContain(bad);
    }
  });
});
