/**
 * The public types of `WebhookRelay`. Like every file of types, this imports no implementation module.
 */
import type { Logger } from '../../index.js';
import type { WebhookEndpoint } from '../../webhooks/index.js';
import type { QueueConnection } from '../types.js';

/**
 * Options of `new WebhookRelay()`. An unknown key is refused (a misspelt option would otherwise
 * be ignored), as the client refuses one.
 *
 * @example
 * ```ts
 * new WebhookRelay({ connection, name: 'sms', endpoints: [{ url: 'https://crm.example.com/hooks', secret }] })
 * ```
 */
export interface WebhookRelayOptions {
  /** The queue's connection, as its producers and workers give it. */
  connection: QueueConnection;
  /** The name of the `MessagingQueue` whose updates are relayed. */
  name: string;
  /**
   * The first part of every Redis key of the queue (BullMQ's `prefix`); every producer, worker and
   * relay of the queue gives the same. On Redis Cluster, wrap it in braces, a hash tag such as
   * `'{sms}'`: the queue's keys then share one slot, which BullMQ's scripts and the SDK's need (a
   * Cluster connection without one is refused). Not used on PostgreSQL.
   * @default 'bull' (BullMQ's)
   * @example `new WebhookRelay({ connection: new Cluster(nodes), name: 'sms', prefix: '{sms}', endpoints })`
   */
  prefix?: string;
  /**
   * Where the events go. Every endpoint's deliveries share one queue and one worker per relay
   * process, so a relay holds the same few datastore connections for 1 endpoint or 1,000; each
   * endpoint has its own share of the attempts (`concurrency`), so a slow or failing endpoint
   * delays only its own events.
   */
  endpoints: readonly WebhookEndpoint[];
  /**
   * Ms one attempt may take, connection and answer headers included (up to 2147483647).
   * @default 10000
   */
  timeout?: number;
  /**
   * Ms an event keeps being retried at an endpoint after it was queued for it: exponential backoff
   * from 5 s, each wait a random share of its ceiling (full jitter), the ceiling at most 6 hours.
   * @default 259200000 (3 days, as Standard Webhooks suggests)
   */
  retryFor?: number;
  /**
   * Attempts this process makes at once to one endpoint: a whole number >= 1. A delivery whose
   * endpoint has this many in flight waits in the datastore for one to end. Every endpoint
   * together, a relay process has at most 640 attempts (requests, sockets) in flight: 128 young
   * ones, and 512 that have run for over a second, so that a stalling endpoint holds only its own
   * share.
   * @default 8
   */
  concurrency?: number;
  /**
   * Allow plain `http://` to a host other than loopback.
   * @default false
   */
  allowInsecureHttp?: boolean;
  /**
   * Where reading starts the first time (no relay of this queue has run yet): `'now'` or
   * `'start'` (everything the queue's event log still holds). Later runs resume where the last
   * one stopped.
   * @default 'now'
   */
  from?: 'now' | 'start';
  /**
   * Ms a relay's lock on a delivery lasts (a whole number up to 2147483647); a killed relay's
   * delivery is made again after about this plus `stalledInterval`.
   * @default 30000
   */
  lockDuration?: number;
  /**
   * Ms between checks for deliveries whose relay died (a whole number up to 2147483647).
   * @default 30000
   */
  stalledInterval?: number;
  /**
   * Where the relay logs given-up deliveries, disabled endpoints and datastore errors (URLs as
   * their origin and path, without their query or fragment; never a secret). It needs `debug`,
   * `info`, `warn` and `error` methods: `console` fits.
   * @default none: silent
   */
  logger?: Logger;
}

/**
 * An endpoint the relay stopped sending to because it answered 410 Gone.
 *
 * @example
 * ```ts
 * for (const { url, since } of await relay.disabledEndpoints()) console.log(url, since)
 * ```
 */
export interface DisabledEndpoint {
  readonly url: string;
  /** When its 410 came (ISO 8601). */
  readonly since: string;
}
