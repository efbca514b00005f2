/** A sender's lane and its key (seam for the fleet, README.md): the rule a send is admitted by. */
export { senderLane } from '../core/rate/lanes.js';
export { senderKey } from '../internal/phones/sender-key.js';
