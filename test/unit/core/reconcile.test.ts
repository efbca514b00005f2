/**
 * reconcileSend (src/core/bulk/reconcile.ts): `messages.reconcile`'s loop over the shared walk,
 * one request per step, against the simulated service, with what each step asked for recorded.
 */
import { describe, expect, it } from 'vitest';
import { FALLBACK_MAX_PAGES, type ReconcileDeps, reconcileSend } from '../../../src/core/bulk/reconcile.js';
import type { ListQuery } from '../../../src/types/query.js';
import { LogService, PARAMS, SENDER_ID } from './walk-service.js';

const BY_PHONE = { sender_phone: '+15550001001', to_phone: PARAMS.to_phone, type: 'text', content: PARAMS.content };

/** Deps over `service`: every query asked for and every sender-number lookup, recorded. */
function depsOf(service: LogService) {
  const queries: ListQuery[] = [];
  const lookups: string[] = [];
  const deps: ReconcileDeps = {
    listPage: async (query) => {
      queries.push(query);
      return service.page(Number(query['page'] ?? 1));
    },
    senderNumberId: async (phone) => {
      lookups.push(phone);
      return phone === BY_PHONE.sender_phone ? SENDER_ID : undefined;
    },
  };
  return { deps, queries, lookups };
}

function stored(counters: 'laravel' | 'last-page' | 'none', newer: number, perPage = 15) {
  const service = new LogService(perPage, counters);
  for (let i = 0; i < 30; i++) service.store('other');
  const windowStart = service.now + 1;
  service.store('target');
  for (let i = 0; i < newer; i++) service.store('other');
  return { service, windowStart };
}

describe('reconcileSend', () => {
  it('looks the sender number up once, then reads one page per step: the first without a page number', async () => {
    const { service, windowStart } = stored('laravel', 200);
    const { deps, queries, lookups } = depsOf(service);
    const result = await reconcileSend({ params: BY_PHONE, windowStart }, deps);
    expect(result).toMatchObject({ status: 'found', log: { content: PARAMS.content } });
    expect(lookups).toEqual([BY_PHONE.sender_phone]);
    expect(queries[0]).toEqual({});
    expect(queries.slice(1).map((q) => q['page'])).toEqual(Array.from({ length: 14 }, (_, i) => i + 2));
  });

  it('a send named by its sender id needs no lookup', async () => {
    const { service, windowStart } = stored('last-page', 20);
    const { deps, lookups } = depsOf(service);
    expect((await reconcileSend({ params: PARAMS, windowStart }, deps)).status).toBe('found');
    expect(lookups).toEqual([]);
  });

  it('ambiguous candidates are whole logs, the unechoed ones included', async () => {
    const { service, windowStart } = stored('laravel', 20);
    const unechoed = service.store('unechoed');
    const result = await reconcileSend({ params: PARAMS, windowStart }, depsOf(service).deps);
    expect(result.status === 'ambiguous' && result.candidates.map((log) => log.id)).toEqual([31, unechoed.id]);
  });

  it('not-found says whether the walk reached the window: maxPages given stops it, and says so', async () => {
    const { service, windowStart } = stored('laravel', 100);
    const deps = depsOf(service).deps;
    expect(await reconcileSend({ params: { ...PARAMS, content: 'never sent' }, windowStart }, deps)).toEqual({
      status: 'not-found',
      searched: { pages: 8, logs: 8 * 15, complete: true },
    });
    expect(await reconcileSend({ params: PARAMS, windowStart, maxPages: 3 }, deps)).toEqual({
      status: 'not-found',
      searched: { pages: 3, logs: 45, complete: false },
    });
  });

  it('a service with no counters whose logs carry no time: the fallback cap ends the walk', async () => {
    const service = new LogService(1, 'none');
    for (let i = 0; i < FALLBACK_MAX_PAGES * 2; i++) service.store('other', true);
    const result = await reconcileSend({ params: PARAMS, windowStart: 0 }, depsOf(service).deps);
    expect(result).toEqual({
      status: 'not-found',
      searched: { pages: FALLBACK_MAX_PAGES, logs: FALLBACK_MAX_PAGES, complete: false },
    });
  });

  it('skips the logs claimed by other items of a batch', async () => {
    const { service, windowStart } = stored('laravel', 5);
    const twin = service.store('target');
    const result = await reconcileSend({ params: PARAMS, windowStart }, depsOf(service).deps, new Set([twin.id]));
    expect(result).toMatchObject({ status: 'found', log: { id: 31 } });
  });
});
