import type { SentParams } from '../../index.js';
import {
  startWalk as startCoreWalk,
  stepWalk,
  type WalkCaps,
  type WalkOutcome,
  type WalkPage,
  type WalkState,
} from '../../seam/reconcile-walk.js';

/**
 * The fleet's reconcile walk: the core's walk (core/bulk/reconcile-walk.ts, shared with
 * `messages.reconcile`), one page per job start, each request admitted by the fleet gate like any
 * other (fleet/gate.ts), and the job back in the queue between pages. Its state lives in the
 * job's data (`SendJobData.reconcile`): a crash during reconciliation resumes it. The fleet's
 * `rateLimit.requestsPerSecond` bounds the tenant's sends, so the walk's caps derive from it.
 *
 * The state is the core's, field for field: a job stored by an earlier release resumes as it was.
 */
export type WalkProgress = WalkState;
export type { WalkCaps };

/** How a walk ended (the core's outcome). */
export type WalkResult = WalkOutcome;

/** A fresh walk for a send whose POST began at `startedAt`: its window starts `clockSkewMs` earlier. */
export function startWalk(startedAt: number, clockSkewMs: number): WalkProgress {
  return startCoreWalk(startedAt - clockSkewMs);
}

/** What a step compares the logs with, and the fleet's limit the caps derive from. */
export interface WalkContext {
  readonly params: SentParams;
  readonly requestsPerSecond: number | undefined;
  readonly now: number;
}

/** Takes in the page `progress.page` just read: the walk's next progress, or how it ended. */
export function walkPage(
  progress: WalkProgress,
  page: WalkPage,
  context: WalkContext,
): { readonly progress: WalkProgress } | { readonly result: WalkResult } {
  const step = stepWalk(progress, page, context);
  return step.kind === 'read' ? { progress: step.state } : { result: step.outcome };
}
