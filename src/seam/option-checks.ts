/** Options checked as the client checks its own (seam for the fleet, README.md). */
export { issuesFromZod } from '../errors.js';
export { checkKnownKeys, type KnownKeys, MAX_TIMER_MS } from '../internal/checks.js';
export { describeValue } from '../internal/describe-value.js';
export { readFields } from '../internal/input.js';
export { isPlainObject } from '../internal/is-plain-object.js';
