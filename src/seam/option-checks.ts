/** Options checked as the client checks its own (seam for the fleet, README.md). */
export { issuesFromZod } from '../errors.js';
export { checkKnownKeys, type KnownKeys, MAX_TIMER_MS } from '../internal/values/checks.js';
export { describeValue } from '../internal/values/describe-value.js';
export { readFields } from '../internal/values/input.js';
export { isPlainObject } from '../internal/values/is-plain-object.js';
