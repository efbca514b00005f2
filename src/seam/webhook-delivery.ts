/** A webhook's delivery (seam for the fleet, README.md): one attempt, its outcome and retry, endpoint checks, a URL shown without its secrets. */
export { attempt, isDelivered, isGone, retryDelay } from '../webhooks/attempt.js';
export { checkDeliverySettings, subscribes } from '../webhooks/endpoints.js';
export { fleetEvent } from '../webhooks/events-of.js';
export { scrubbedText, shownUrl } from '../webhooks/shown-url.js';
