import type { Job, Queue } from 'bullmq';
import type { Logger, MessagingClient } from '../../index.js';
import type { FleetGate } from '../fleet/gate.js';
import type { FleetLanes } from '../fleet/lanes.js';
import type { BullMQModule } from '../load.js';
import type { OwnedWrites } from '../store/types.js';
import type { UpdateLog } from '../store/update-log.js';
import type { SendJobData, SendJobResult } from './job-data.js';
import type { MarkConfirmer } from './mark.js';

/** Tracking settings with their defaults applied. */
export interface TrackSettings {
  readonly until: 'delivered' | 'read';
  readonly timeout: number;
  readonly interval: number;
}

/** What the processor needs: all of it shared by the worker's jobs. */
export interface ProcessDeps {
  readonly bull: BullMQModule;
  /** The worker's client, with `maxRetries: 0`. */
  readonly client: MessagingClient;
  /** For `queue.rateLimit(ms)`: pauses every worker of the queue. */
  readonly queue: Queue;
  /** Where updates are published: the queue's datastore. */
  readonly updates: UpdateLog;
  readonly track: TrackSettings | undefined;
  readonly logger: Logger | undefined;
  /** Admits every request within the fleet's limit (fleet/gate.ts). */
  readonly gate: FleetGate;
  /** Per-sender and per-recipient lanes for the sends (fleet/lanes.ts), when configured. */
  readonly lanes?: FleetLanes | undefined;
  /** The fleet's limit: the reconcile walk's page cap derives from it (walk.ts). */
  readonly requestsPerSecond: number | undefined;
  /** How far the service's clock may be behind the workers' (the reconcile window's margin). */
  readonly clockSkewMs: number;
  /**
   * Every write of a job's data made under the job's lock (store/types.ts): a worker that lost it
   * writes nothing more, and never POSTs. None: plain writes (a processor's own tests).
   */
  readonly owned?: OwnedWrites | undefined;
  /** Whether a mark survives a failover (mark.ts); none: every mark does (a test's processor). */
  readonly marks?: MarkConfirmer | undefined;
  readonly random?: () => number;
}

/** A send job as BullMQ hands it to the processor. */
export type SendJob = Job<SendJobData, SendJobResult>;

/** One step of the state table for a job start: what a processor's run does in one phase. */
export type Step = (job: SendJob, token: string | undefined) => Promise<SendJobResult>;
