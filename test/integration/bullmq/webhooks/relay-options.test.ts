/**
 * WebhookRelay's options are checked before any I/O (no datastore is reached: the connection
 * points at a closed port): each bad one is named, unknown keys too, as the client refuses them,
 * and no error quotes a secret. The relay at work: relay.test.ts.
 */
import type { WebhookRelayOptions } from 'tenant-messaging/bullmq';
import { WebhookRelay } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { configError } from '../../../helpers/errors.js';
import { OTHER, SECRET, SECRETS } from './relay-fixture.js';

describe('WebhookRelay options', () => {
  it('refuses bad options before any I/O, naming each and never quoting a secret', () => {
    const connection = { host: '127.0.0.1', port: 1 };
    const base = { connection, name: 'sms', endpoints: [{ url: 'https://example.com/hooks', secret: SECRET }] };
    const cases: [Partial<WebhookRelayOptions> & Record<string, unknown>, string][] = [
      [{ endpoints: [] }, 'endpoints'],
      [{ endpoints: [{ url: 'http://example.com/hooks', secret: SECRET }] }, 'endpoints[0].url'],
      [{ endpoints: [{ url: 'https://example.com/hooks', secret: 'whsec_%%%' }] }, 'endpoints[0].secret'],
      [
        { endpoints: [{ url: 'https://example.com/hooks', secret: SECRET, events: ['message.opened' as never] }] },
        'endpoints[0].events',
      ],
      [{ endpoints: [...base.endpoints, { url: 'https://example.com/hooks', secret: OTHER }] }, 'endpoints[1].url'],
      [{ timeout: 0 }, 'timeout'],
      [{ retryFor: -1 }, 'retryFor'],
      [{ concurrency: 1.5 }, 'concurrency'],
      [{ from: 'yesterday' as never }, 'from'],
      [{ name: 'a:b' }, 'name'],
      // Unknown keys, as the client refuses them: in the options and in each endpoint.
      [{ concurency: 8 }, 'concurency'],
      [{ Concurrency: 8 }, 'Concurrency'],
      [{ endpoints: [{ ...base.endpoints[0], Secret: SECRET } as never] }, 'endpoints[0].Secret'],
      [{ endpoints: [null as never] }, 'endpoints[0]'],
      [{ endpoints: [{ url: 'https://user:pass@example.com/hooks', secret: SECRET }] }, 'endpoints[0].url'],
      [{ timeout: 3_000_000_000 }, 'timeout'],
      [{ retryFor: Number.POSITIVE_INFINITY }, 'retryFor'],
      [{ lockDuration: 1.5 }, 'lockDuration'],
      [{ lockDuration: 3_000_000_000 }, 'lockDuration'],
      [{ stalledInterval: 0 }, 'stalledInterval'],
      [{ allowInsecureHttp: 'yes' as never }, 'allowInsecureHttp'],
      [{ logger: {} as never }, 'logger'],
    ];
    for (const [change, path] of cases) {
      const error = configError(() => new WebhookRelay({ ...base, ...change } as WebhookRelayOptions));
      expect(
        error.issues.map((issue) => issue.path),
        path,
      ).toContain(path);
      for (const secret of SECRETS) expect(JSON.stringify({ m: error.message, i: error.issues })).not.toContain(secret);
    }
    // A key that differs only in case names the option it meant.
    expect(configError(() => new WebhookRelay({ ...base, Concurrency: 8 } as never)).message).toMatch(
      /Concurrency: is not an option of WebhookRelay; did you mean concurrency\?/,
    );
    // http on loopback is fine without allowInsecureHttp, and anywhere with it.
    expect(() =>
      configError(() => new WebhookRelay({ ...base, endpoints: [], allowInsecureHttp: true })),
    ).not.toThrow();
  });
});
