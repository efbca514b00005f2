/**
 * What each error code means, in a line: the docs' table of codes (docs/troubleshooting.md) is
 * written from it. Typed by `ErrorCode`: a new code fails to compile here until it is described.
 */
import type { ErrorCode } from 'tenant-messaging';

export const ERROR_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  'validation.options': 'An option given to a constructor or factory is invalid: refused at once, nothing was sent.',
  'validation.params':
    'A call’s arguments are invalid (a send’s fields, an id, a query, a media file): refused before any I/O, nothing was sent.',
  'validation.rejected': 'The service rejected the request’s fields (HTTP 422): `errors` names each field.',
  'auth.invalid_key':
    'The service refused the API key (HTTP 401): it is missing, mistyped, expired or revoked, and the service does not say which.',
  'scope.missing': 'The API key lacks the scope the endpoint needs (HTTP 403): `requiredScope` names it.',
  'not_found.route':
    'No such endpoint (HTTP 404): the base URL is not the tenant URL, or the path is not one of the API’s.',
  'not_found.message_log':
    'The message log does not exist in this tenant’s workspace (HTTP 404): `messageLogId` names it.',
  'not_found.resource': 'A path off the endpoint table (`client.request()`) answered HTTP 404.',
  'rate_limit.exceeded': 'The tenant’s rate limit was reached (HTTP 429): `retryAfter` says how long to wait.',
  'server.error': 'The service, or a proxy in front of it, failed (HTTP 5xx); reads were retried first.',
  'http.redirect': 'The service answered with a redirect (HTTP 3xx), which the SDK never follows: the key stays home.',
  'http.status':
    'The service answered with another error status (400, 405, 409…): `status` and `serverMessage` say which.',
  'response.invalid': 'A 2xx answer’s body does not match the API specification: `body` holds it as it came.',
  'network.refused': 'The connection was refused: nothing listens at the base URL’s host and port. Nothing was sent.',
  'network.dns': 'The base URL’s host name did not resolve. Nothing was sent.',
  'network.unreachable': 'The base URL’s host or network is unreachable. Nothing was sent.',
  'network.tls': 'The TLS handshake with the base URL’s host failed (certificate or protocol).',
  'network.reset': 'The connection closed before a whole answer came: the request may have arrived.',
  'network.failed': 'The network failed in another way: `cause` holds what the HTTP client said.',
  'network.timeout':
    'A request did not complete within its `timeout`: `timeoutMs`, `attempts` and `elapsedMs` say how.',
  'outcome.unknown': 'A request that changes something may have reached the service, and no answer says what happened.',
  'send.outcome_unknown':
    'A send may have reached the service, and no answer says what happened: reconcile before sending again.',
  'send.stopped': 'A send of a batch was not sent: the batch stopped while it waited for its lane.',
  'delivery.timeout': 'The wanted delivery_status was not seen before the deadline: `lastLog` holds the last read.',
  'peer.missing': 'A feature needs an optional peer dependency that is not installed: `peer` names it.',
  'webhook.missing_header': 'A webhook lacks `webhook-id`, `webhook-timestamp` or `webhook-signature`.',
  'webhook.malformed_header': 'A webhook’s `webhook-timestamp` is not a number of seconds.',
  'webhook.stale_timestamp': 'A webhook was signed longer ago than the tolerance: a replay, or a clock far behind.',
  'webhook.future_timestamp': 'A webhook was signed further in the future than the tolerance: a clock far ahead.',
  'webhook.bad_signature': 'No signature of a webhook matches its body with this secret.',
  'webhook.bad_body': 'A webhook’s signature matches, but its body is not a JSON event.',
  'datastore.not_durable': 'Redis runs without an append-only file: a restart would lose what it acknowledged.',
  'datastore.evicts': 'Redis’s `maxmemory-policy` is not `noeviction`: it deletes keys when full.',
  'datastore.forgot':
    'The queue’s marker is gone (a restart without persistence, a flush, an eviction): sends may be lost.',
  'datastore.full': 'The datastore refused a write for lack of memory or disk: nothing was stored.',
  'datastore.rolled_back': 'A failover rolled back sends this process had enqueued: `ids` names them.',
  'datastore.not_replicated': 'No replica confirmed an enqueue in time; it IS stored on the primary: `ids` names it.',
  'datastore.schema_missing':
    'The queue’s tables are missing from the PostgreSQL schema, or this role may not create them.',
  'sdk.unclassified': 'An error made without a more specific code (a `MessagingError` made by hand, say).',
};
