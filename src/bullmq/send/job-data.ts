import type { StoredQuiet } from '../schedule/plan.js';
import type { UpdateError } from '../types.js';
import type { StoredParams } from './params.js';
import type { Phase } from './states.js';
import type { WalkProgress } from './walk.js';

/**
 * What a job holds in Redis (its `data`), and nothing else: the checked send parameters (phone
 * numbers, content, media path or up to 1 MB of media), where the send stands, and when it began.
 * Never the API key: workers bring their own client.
 */
export interface SendJobData {
  /** The format's version, for workers of a later release. */
  readonly v: 1;
  readonly params: StoredParams;
  readonly phase: Phase;
  /** When the last POST began (ms since the epoch): reconciling searches the logs from then. */
  readonly startedAt?: number;
  /** The message log's id once sent. */
  readonly logId?: number;
  /** A reconcile walk's progress (walk.ts): any worker takes its next page; a crash resumes it. */
  readonly reconcile?: WalkProgress;
  /** Delivery tracking's progress. */
  readonly track?: TrackState;
  /** Why it ended `failed` or `unknown`. */
  readonly error?: UpdateError;
  /** How many times `queue.resend(id)` sent it again. */
  readonly resends?: number;
  /** Its quiet hours, checked again by the worker before the POST (a backlog may reach into them). */
  readonly quiet?: StoredQuiet;
  /**
   * The canonical E.164 form of `params.to_phone` (a key, never sent): the key of its
   * per-recipient lane. Stored at enqueue when `'recipient'` quiet hours parsed the number, else
   * with the first write after a worker's lanes parsed it. Absent in a job of an earlier version,
   * or one no per-recipient lane has seen: then parsed at admission.
   */
  readonly recipient?: string;
}

/** Delivery tracking's progress, kept in the job so that any worker can take the next poll. */
export interface TrackState {
  /** When tracking gives up (ms since the epoch). */
  readonly deadline: number;
  /** Polls in a row that saw no change (the backoff grows with it). */
  readonly unchanged: number;
  /** The last `delivery_status` seen. */
  readonly status?: string;
  readonly polls: number;
}

/** A finished job's `returnvalue`. */
export interface SendJobResult {
  readonly status: 'sent';
  readonly logId: number | undefined;
  /** How tracking ended, when it ran. */
  readonly delivery?: 'delivered' | 'read' | 'delivery-timeout' | 'not-found';
}

/** The job name of every send (polls are the same job, later). */
export const SEND_JOB = 'send';
