/**
 * The crash-safety state machine of a queued send, as a table (STYLE.md). A job's `phase` lives in
 * its data in Redis and is written (awaited) BEFORE the step it announces, so a worker that dies at
 * any instant leaves a phase that says what may have happened:
 *
 * | phase       | event                                        | next        | what the worker does                                             |
 * |-------------|----------------------------------------------|-------------|------------------------------------------------------------------|
 * | `queued`    | `start`                                      | `in-flight` | records `startedAt` (job.updateData), then POSTs                 |
 * | `in-flight` | `accepted` (2xx)                             | `sent`      | records the log id; publishes `sent`; tracks it if asked         |
 * | `in-flight` | `rate-limited` (429)                         | `queued`    | pauses the whole queue for Retry-After; not a failure            |
 * | `in-flight` | `never-sent` (the connection was never made) | `queued`    | retried with backoff (BullMQ attempts)                           |
 * | `in-flight` | `never-sent` (the mark not on a replica)     | `queued`    | not POSTed; delayed 1 s, no attempt used (mark.ts)               |
 * | `in-flight` | `gave-up` (never sent, on the last attempt)  | `failed`    | publishes `failed`: certainly not sent; never retried            |
 * | `in-flight` | `refused` (422 and other definite 4xx)       | `failed`    | publishes `failed` with the error's fields; never retried        |
 * | `in-flight` | `outcome-unknown` (timeout, reset, 5xx)      | `in-flight` | starts a reconcile walk; back to the queue's front               |
 * | `in-flight` | `rerun` (a crash before the walk began)      | `in-flight` | starts a reconcile walk: never POSTs blindly                     |
 * | `in-flight` | `page` (one request of the walk, walk.ts)    | `in-flight` | keeps the walk's progress; back to the queue's front             |
 * | `in-flight` | `found` (reconcile)                          | `sent`      | publishes `sent` with the log found                              |
 * | `in-flight` | `not-found` / `ambiguous` (reconcile)        | `unknown`   | publishes `unknown`; kept for a person (`queue.resend(id)`)      |
 * | `sent`      | `track` (trackDelivery)                      | `tracking`  | becomes a delayed poll job in the same queue                     |
 * | `sent`      | `restart` (a start before tracking began)    | `sent`      | a crash may have lost the `sent` update: publishes it again      |
 * | `tracking`  | `changed` / `unchanged` / `transient`        | `tracking`  | publishes a change; polls again later, backing off               |
 * | `tracking`  | `reached` / `gone` (404) / `expired`         | `sent`      | ends tracking (`delivered`/`read`, nothing, `delivery-timeout`)  |
 * | `unknown`   | `resend` (queue.resend(id), logged)          | `queued`    | the one explicit way to POST a send that may have gone out       |
 * | `failed`    | `resend`                                     | `queued`    | the same, for a refusal the application has fixed                |
 *
 * Every write of a job's data goes through the table (process.ts's `move`, `queue.resend`): a
 * property test drives the processor through random answers and crashes and holds every write to it.
 *
 * Why a crash never sends twice: a job is POSTed only from `queued`, and `queued` is left (for
 * `in-flight`, in Redis) before the POST begins. A re-run after a crash therefore finds
 * `in-flight` whenever a POST may have started, and reconciles instead. (`job.stalledCounter` says
 * a re-run follows a crash, but a crash before the mark was written is harmless, so the mark alone decides.)
 * Every write is made under the job's lock (job-control.ts, store's `OwnedWrites`): a worker
 * whose lock expired while the job waited (a datastore stalled past `lockDuration`) may have been
 * overtaken by another worker that took the job from `queued`; its mark is then refused in the
 * same atomic step, and it never POSTs.
 * On Redis with replicas the mark must also outlive a failover: a replica promoted before it
 * received the mark would hold the job `queued`. So the POST waits until a replica acknowledged
 * the mark (mark.ts, store/README.md); a mark not confirmed in time is given back, never POSTed.
 * Why every request shares the fleet's limit: each one is admitted by the fleet gate
 * (fleet/gate.ts). A job still makes at most one request per start: a reconcile walk reads one page
 * per start (`page`), its progress in the job's data, and goes back to the queue between pages, so
 * a crash mid-walk resumes it and a long walk does not hold a worker slot.
 * Why none is lost: every path out of `in-flight` ends `sent`, `failed` or `unknown`, each
 * published to `updates()` and kept in Redis; `unknown` is the honest answer when the API, which has
 * no idempotency key, cannot say.
 */
export type Phase = 'queued' | 'in-flight' | 'sent' | 'tracking' | 'failed' | 'unknown';

/** What can happen to a job in a phase. */
export type SendEvent =
  | 'start'
  | 'accepted'
  | 'rate-limited'
  | 'never-sent'
  | 'gave-up'
  | 'refused'
  | 'outcome-unknown'
  | 'rerun'
  | 'page'
  | 'found'
  | 'not-found'
  | 'ambiguous'
  | 'track'
  | 'restart'
  | 'changed'
  | 'unchanged'
  | 'transient'
  | 'reached'
  | 'gone'
  | 'expired'
  | 'resend';

/** The table above, as data: `TRANSITIONS[phase][event]` is the next phase; a missing entry is a bug. */
export const TRANSITIONS: Readonly<Record<Phase, Readonly<Partial<Record<SendEvent, Phase>>>>> = {
  queued: { start: 'in-flight' },
  'in-flight': {
    accepted: 'sent',
    'rate-limited': 'queued',
    'never-sent': 'queued',
    'gave-up': 'failed',
    refused: 'failed',
    'outcome-unknown': 'in-flight',
    rerun: 'in-flight',
    page: 'in-flight',
    found: 'sent',
    'not-found': 'unknown',
    ambiguous: 'unknown',
  },
  sent: { track: 'tracking', restart: 'sent' },
  tracking: {
    changed: 'tracking',
    unchanged: 'tracking',
    transient: 'tracking',
    reached: 'sent',
    gone: 'sent',
    expired: 'sent',
  },
  failed: { resend: 'queued' },
  unknown: { resend: 'queued' },
};

/** The next phase; throws on a transition the table does not have (a bug, never a user error). */
export function next(phase: Phase, event: SendEvent): Phase {
  const to = TRANSITIONS[phase][event];
  if (to === undefined) throw new Error(`tenant-messaging/bullmq: no transition from '${phase}' on '${event}'`);
  return to;
}

/** What a job does when a worker starts it, from its phase alone (the crash-safety rule). */
export function stepOf(phase: Phase): 'send' | 'reconcile' | 'poll' | 'finished' {
  if (phase === 'queued') return 'send';
  if (phase === 'in-flight') return 'reconcile';
  if (phase === 'tracking') return 'poll';
  return 'finished';
}
