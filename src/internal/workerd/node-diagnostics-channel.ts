import type * as NodeChannels from 'node:diagnostics_channel';
import { nodeBuiltin } from './builtin.js';

const channels = nodeBuiltin<typeof NodeChannels>('node:diagnostics_channel');

/** A channel where the runtime has none: no one subscribes, and a message goes nowhere. */
const silent = { hasSubscribers: false, publish: () => undefined };

/**
 * `node:diagnostics_channel`'s `channel` in the Workers build: the runtime's own, or a channel no
 * one subscribes to.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:diagnostics_channel')` gives nothing
 * @example
 * ```ts
 * const retry = channel('tenant-messaging:retry')
 * ```
 */
export const channel = (channels?.channel ?? (() => silent)) as typeof NodeChannels.channel;

/**
 * `node:diagnostics_channel`'s `tracingChannel` in the Workers build: the runtime's own, or one
 * with no subscribers whose `tracePromise` only runs the traced call.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:diagnostics_channel')` gives nothing
 * @example
 * ```ts
 * const request = tracingChannel('tenant-messaging:request')
 * ```
 */
export const tracingChannel = (channels?.tracingChannel ??
  (() => ({
    hasSubscribers: false,
    start: silent,
    end: silent,
    asyncStart: silent,
    asyncEnd: silent,
    error: silent,
    tracePromise: <T>(
      fn: (...args: unknown[]) => Promise<T>,
      _context: unknown,
      thisArg?: unknown,
      ...args: unknown[]
    ) => fn.apply(thisArg, args),
  }))) as unknown as typeof NodeChannels.tracingChannel;
