/** The reconcile walk (seam for the fleet, README.md): a send whose outcome is unknown, looked for in the logs. */
export {
  needsSenderId,
  startWalk,
  stepWalk,
  type WalkCaps,
  type WalkOutcome,
  type WalkPage,
  type WalkState,
  withSenderId,
} from '../core/bulk/reconcile-walk.js';
