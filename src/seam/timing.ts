/** Waiting as the client waits (seam for the fleet, README.md): sleep, a FIFO of waiters, a poll's delay. */
export { nextPollDelay } from '../core/polling/poll.js';
export { Fifo, type FifoNode } from '../internal/waiting/fifo.js';
export { sleep } from '../internal/waiting/sleep.js';
