import { type Issue, ValidationError } from '../../errors.js';
import { DEFAULTS } from '../../options.js';
import type { TrackDeliveriesOptions } from '../../types/many.js';
import type { MessageLog } from '../../types/message-log.js';
import type { WaitForDeliveryOptions } from '../../types/polling.js';
import { check, checkKnownKeys, type KnownKeys } from '../values/checks.js';
import { describeValue } from '../values/describe-value.js';
import { readFields } from '../values/input.js';
import { isIterable } from './many-options.js';

const POLL_OPTIONS: KnownKeys<WaitForDeliveryOptions> = {
  interval: true,
  timeout: true,
  until: true,
  signal: true,
  onUpdate: true,
};

/** `WaitForDeliveryOptions` with the defaults applied. */
export interface PollSettings {
  readonly interval: number;
  readonly timeout: number;
  readonly until: 'delivered' | 'read';
  readonly signal?: AbortSignal | undefined;
  readonly onUpdate?: ((log: MessageLog) => void) | undefined;
}

/** Applies the defaults of `waitForDelivery` and checks what the caller gave. */
export function resolvePollSettings(given: unknown): PollSettings {
  const what = 'Invalid waitForDelivery options';
  const options = given === undefined ? {} : readFields(given, what, '{ interval: 1000, timeout: 60000 }');
  const issues: Issue[] = [];
  checkKnownKeys(options, POLL_OPTIONS, ' of waitForDelivery', issues);
  const {
    interval = DEFAULTS.pollInterval,
    timeout = DEFAULTS.pollTimeout,
    until = 'delivered',
    signal,
    onUpdate,
  } = options;
  check.duration(interval, 'interval', issues);
  check.duration(timeout, 'timeout', issues);
  if (until !== 'delivered' && until !== 'read') {
    issues.push({ path: 'until', message: `must be 'delivered' or 'read', got ${describeValue(until)}` });
  }
  check.callback(onUpdate, 'onUpdate', issues);
  check.signal(signal, 'signal', issues);
  if (issues.length > 0) throw new ValidationError(what, issues);
  return {
    interval: interval as number,
    timeout: timeout as number,
    until: until as PollSettings['until'],
    signal: signal as AbortSignal | undefined,
    onUpdate: onUpdate as PollSettings['onUpdate'],
  };
}

const TRACK_OPTIONS: KnownKeys<TrackDeliveriesOptions> = { interval: true, timeout: true, until: true, signal: true };

/**
 * Checks `trackDeliveries`' arguments before anything starts: the ids must be iterable, and the
 * options are `waitForDelivery`'s without `onUpdate` (the updates are what it yields).
 */
export function checkTrackOptions(ids: unknown, given: unknown): PollSettings {
  const iterable = isIterable(ids);
  if (!iterable) {
    throw new ValidationError('Invalid trackDeliveries ids', [
      { path: 'ids', message: `must be an iterable or async iterable of message log ids, got ${describeValue(ids)}` },
    ]);
  }
  const fields = given === undefined ? {} : readFields(given, 'Invalid trackDeliveries options', '{ timeout: 600000 }');
  const issues: Issue[] = [];
  checkKnownKeys(fields, TRACK_OPTIONS, ' of trackDeliveries', issues);
  if (issues.length > 0) throw new ValidationError('Invalid trackDeliveries options', issues);
  return resolvePollSettings(fields);
}
