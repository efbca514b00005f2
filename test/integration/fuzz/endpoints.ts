/**
 * Every endpoint of the SDK as the fuzzer calls it, with what a successful answer must look like
 * and how long the call may take at most.
 */
import { Readable } from 'node:stream';
import { type MessagingClient, Page } from 'tenant-messaging';
import { messageLogSchema } from '../../../src/schemas/message-log.js';
import { LOG_ID } from './arbitraries.js';

export const ENDPOINT_NAMES = [
  'me',
  'subscription',
  'usage',
  'senderNumbers.list',
  'contacts.lookup',
  'messages.send text',
  'messages.send media',
  'messages.get',
  'messages.list',
  'messages.list walk',
  'waitForDelivery',
] as const;
export type EndpointName = (typeof ENDPOINT_NAMES)[number];

/** The per-call settings a case draws. */
export interface CallSettings {
  readonly timeout: number;
  readonly maxRetries: number;
  /** waitForDelivery's own timeout and interval. */
  readonly waitTimeout: number;
  readonly interval: number;
  readonly signal?: AbortSignal | undefined;
}

/** The longest wait between attempts: backoff (<= 1 s for the second retry) or a Retry-After the arbitraries keep <= 1 s. */
const MAX_RETRY_DELAY_MS = 1_000;
/** Pages a walk may fetch: each further page must be a new page number with new items, which the answers run out of. */
const MAX_WALK_PAGES = 6;

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isLog = (value: unknown) => messageLogSchema.safeParse(value).success;

/** What the call may take at most, before slack: its attempts, their deadlines, the waits between. */
export function callBound(name: EndpointName, s: CallSettings): number {
  if (name === 'waitForDelivery') return s.waitTimeout;
  const call = (s.maxRetries + 1) * s.timeout + s.maxRetries * MAX_RETRY_DELAY_MS;
  return name === 'messages.list walk' ? MAX_WALK_PAGES * call : call;
}

/** The most requests the call may make (a send is never repeated past its budget). */
export function requestBound(name: EndpointName, s: CallSettings): number {
  if (name === 'waitForDelivery') return Number.POSITIVE_INFINITY;
  return (name === 'messages.list walk' ? MAX_WALK_PAGES : 1) * (s.maxRetries + 1);
}

/** Starts the call; resolves to what the SDK answered. */
export function callEndpoint(client: MessagingClient, name: EndpointName, s: CallSettings): Promise<unknown> {
  const options = { timeout: s.timeout, maxRetries: s.maxRetries, ...(s.signal ? { signal: s.signal } : {}) };
  const sender = { sender_phone: '+15550000001', to_phone: '+15550000002' };
  switch (name) {
    case 'me':
      return client.me(options);
    case 'subscription':
      return client.subscription(options);
    case 'usage':
      return client.usage(options);
    case 'senderNumbers.list':
      return client.senderNumbers.list(options);
    case 'contacts.lookup':
      return client.contacts.lookup({ phone: '+15550000002', sender_phone: '+15550000001' }, options);
    case 'messages.send text':
      return client.messages.send({ ...sender, type: 'text', content: 'fuzz' }, options);
    case 'messages.send media': {
      // Large enough that an early answer arrives before the upload is over.
      const data = Readable.from([Buffer.alloc(96 * 1024, 1), Buffer.alloc(96 * 1024, 2)]);
      return client.messages.send({ ...sender, type: 'image', media: { data, filename: 'a.png' } }, options);
    }
    case 'messages.get':
      return client.messages.get(LOG_ID, options);
    case 'messages.list':
      return Promise.resolve(client.messages.list({}, options));
    case 'messages.list walk':
      return (async () => {
        const seen: unknown[] = [];
        for await (const item of client.messages.list(undefined, options)) seen.push(item);
        return seen;
      })();
    case 'waitForDelivery':
      return client.waitForDelivery(LOG_ID, {
        timeout: s.waitTimeout,
        interval: s.interval,
        ...(s.signal ? { signal: s.signal } : {}),
      });
  }
}

/** Why a value the call resolved with is not what the endpoint promises; undefined when it is. */
export function invalidValue(name: EndpointName, value: unknown): string | undefined {
  const ok = (() => {
    switch (name) {
      case 'me':
      case 'subscription':
      case 'usage':
      case 'contacts.lookup':
        return isObject(value);
      case 'senderNumbers.list':
        return Array.isArray(value) && value.every(isObject);
      case 'messages.send text':
      case 'messages.send media':
        return isLog(value);
      case 'messages.get':
        return isLog(value) && (value as { id: unknown }).id === LOG_ID;
      case 'messages.list':
        return value instanceof Page && value.data.every(isLog);
      case 'messages.list walk':
        return Array.isArray(value) && value.every(isLog);
      case 'waitForDelivery': {
        const status = (value as { delivery_status?: unknown }).delivery_status;
        return (
          isLog(value) && (value as { id: unknown }).id === LOG_ID && (status === 'delivered' || status === 'read')
        );
      }
    }
  })();
  return ok ? undefined : `${name} resolved with a value that does not pass its schema`;
}
