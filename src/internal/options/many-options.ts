import { type Issue, ValidationError } from '../../errors.js';
import type { ReconcileOptions, SendManyOptions } from '../../types/many.js';
import type { SentParams } from '../../types/send.js';
import { check, checkKnownKeys, type KnownKeys } from '../values/checks.js';
import { describeValue } from '../values/describe-value.js';
import { readFields } from '../values/input.js';

const SEND_MANY: KnownKeys<SendManyOptions> = { concurrency: true, signal: true, reconcile: true, stopOnError: true };
const RECONCILE: KnownKeys<ReconcileOptions> = { since: true, signal: true, maxPages: true, clockSkewMs: true };

/** `sendMany`'s settings with the defaults applied. */
export interface SendManySettings {
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  readonly reconcile: boolean;
  readonly stopOnError: boolean;
}

/** True for an iterable or async iterable; false (never a throw) for anything else, hostile Proxies included. */
export function isIterable(value: unknown): boolean {
  try {
    return typeof value === 'object' && value !== null && (Symbol.iterator in value || Symbol.asyncIterator in value);
  } catch {
    return false;
  }
}

/** Checks `sendMany`'s source and options before anything is read or sent. */
export function checkSendManyOptions(source: unknown, given: unknown): SendManySettings {
  const what = 'Invalid sendMany arguments';
  const issues: Issue[] = [];
  if (!isIterable(source)) {
    issues.push({
      path: 'source',
      message: `must be an iterable or async iterable of send parameters, got ${describeValue(source)}`,
    });
  }
  const options = given === undefined ? {} : readFields(given, what, '{ concurrency: 8 }');
  checkKnownKeys(options, SEND_MANY, ' of sendMany', issues);
  const { concurrency = 4, signal, reconcile = true, stopOnError = false } = options;
  if (!(Number.isSafeInteger(concurrency) && (concurrency as number) >= 1 && (concurrency as number) <= 256)) {
    issues.push({
      path: 'concurrency',
      message: `must be an integer from 1 to 256, got ${describeValue(concurrency)}`,
    });
  }
  check.signal(signal, 'signal', issues);
  for (const [name, value] of [
    ['reconcile', reconcile],
    ['stopOnError', stopOnError],
  ] as const) {
    if (typeof value !== 'boolean')
      issues.push({ path: name, message: `must be true or false, got ${describeValue(value)}` });
  }
  if (issues.length > 0) throw new ValidationError(what, issues);
  return {
    concurrency: concurrency as number,
    signal: signal as AbortSignal | undefined,
    reconcile: reconcile as boolean,
    stopOnError: stopOnError as boolean,
  };
}

/** A reconcile's search once checked: what to look for, and from when. */
export interface ReconcileSearch {
  readonly params: SentParams;
  readonly windowStart: number;
  readonly maxPages: number;
}

/** Checks `reconcile`'s arguments before any request. */
export function checkReconcile(given: unknown, options: unknown): ReconcileSearch {
  const what = 'Invalid reconcile arguments';
  const params = readFields(given, what, '{ to_phone, type, content, sender_phone } (SendOutcomeUnknownError.params)');
  const settings = readFields(options, what, '{ since: error.startedAt }');
  const issues: Issue[] = [];
  checkKnownKeys(settings, RECONCILE, ' of reconcile', issues);
  for (const field of ['to_phone', 'type'] as const) {
    if (typeof params[field] !== 'string')
      issues.push({ path: field, message: `must be a string, got ${describeValue(params[field])}` });
  }
  if (params['sender_phone'] === undefined && params['sender_number_id'] === undefined) {
    issues.push({ path: 'sender_phone', message: 'give the sending number as sender_phone or sender_number_id' });
  }
  const { since, signal, maxPages = 10, clockSkewMs = 60_000 } = settings;
  if (!(since instanceof Date) || Number.isNaN(since.getTime())) {
    issues.push({
      path: 'since',
      message: `must be a valid Date (SendOutcomeUnknownError.startedAt), got ${describeValue(since)}`,
    });
  }
  check.signal(signal, 'signal', issues);
  check.positiveInteger(maxPages, 'maxPages', issues);
  if (!(typeof clockSkewMs === 'number' && Number.isFinite(clockSkewMs) && clockSkewMs >= 0)) {
    issues.push({ path: 'clockSkewMs', message: `must be a number of ms >= 0, got ${describeValue(clockSkewMs)}` });
  }
  if (issues.length > 0) throw new ValidationError(what, issues);
  return {
    params: params as unknown as SentParams,
    windowStart: (since as Date).getTime() - (clockSkewMs as number),
    maxPages: maxPages as number,
  };
}
