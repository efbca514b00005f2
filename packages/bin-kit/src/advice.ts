/**
 * What to do about each SDK error, by its `code` and fields: never by the English of its message,
 * which the SDK may reword. Both bins start from this table; each words in its own terms what
 * differs (the command or the tool to run next) and overrides the codes whose remedy depends on
 * what it was running.
 */
import {
  APIConnectionError,
  APIError,
  type DeliveryTimeoutError,
  type ErrorCode,
  type MessagingError,
  type MissingPeerError,
  type NotFoundError,
  type PermissionDeniedError,
} from 'tenant-messaging';
import { ENV } from './credentials.js';

/** What a bin calls its own ways of doing things, for the advice both bins word alike. */
export interface BinTerms {
  /** How to look for a message in the logs, e.g. '`tenant-messaging list`' or 'list_messages'. */
  readonly listLogs: string;
  /** How to look at one log again, e.g. '`tenant-messaging wait 42` or `tenant-messaging get 42`'. */
  readonly lookAgain: (id: number) => string;
  /** Where a log id comes from, e.g. 'the id that send printed'. */
  readonly logIdSource: string;
  /** What shows every request and answer, e.g. 'what the same command prints with --verbose'. */
  readonly verbose: string;
}

/** The advice for an error of one code. */
export type Advice = (error: MessagingError) => string;

/** The tenant URL's form, for a wrong one. */
const TENANT_URL = 'https://messaging.example.com/t/acme';
const URL_FLAGS = `--base-url or ${ENV.baseUrl}`;
const KEY_PLACES = `${ENV.apiKey} or the file given to --api-key-file`;

/**
 * The advice for every code, in `terms`: a bin spreads it and overrides what it words itself.
 * Complete by its type: a code the SDK adds fails to compile here until it has advice.
 *
 * @example
 * ```ts
 * const advice = adviceByCode(CLI_TERMS)['auth.invalid_key'](error) // 'Check the key in TENANT_MESSAGING_API_KEY …'
 * ```
 */
export function adviceByCode(terms: BinTerms): Record<ErrorCode, Advice> {
  const network = (remedy: string) => (error: MessagingError) =>
    `${error instanceof APIConnectionError && error.neverSent ? 'Nothing was sent. ' : ''}${remedy}`;
  return {
    'validation.options': () => `Check the tenant URL (${URL_FLAGS}) and the key (${KEY_PLACES}).`,
    'validation.params': () => 'Fix what is named above, then run it again: nothing was sent.',
    'validation.rejected': () => 'The service refused these fields and stored nothing: fix them, then send again.',
    'auth.invalid_key': () =>
      `Check the key in ${KEY_PLACES}: it is missing, mistyped (a quote, a space or a line cut off), expired or revoked, and the service does not say which. A current key from this tenant’s dashboard fixes it.`,
    'scope.missing': (error) => {
      // The scope of the endpoint that refused (the SDK knows it), not of every endpoint the bin
      // may have called: `send --wait` sends, then reads.
      const scope = (error as PermissionDeniedError).requiredScope;
      return scope
        ? `This key lacks the \`${scope}\` scope: use a key that has it.`
        : 'This key lacks the permission for it: use a key that has it.';
    },
    'not_found.route': (error) =>
      `Check the tenant URL (${URL_FLAGS}): it should be the tenant URL from the dashboard, e.g. ${TENANT_URL}, without /api/v1${given(error)}.`,
    'not_found.message_log': (error) =>
      `Check the id: message log ${String((error as NotFoundError).messageLogId)} is not one of this tenant’s (a log id is ${terms.logIdSource}).`,
    'not_found.resource': () =>
      'Check the path: the API has no such endpoint, or the id in it is not one of this tenant’s.',
    'rate_limit.exceeded': () => 'The tenant’s rate limit was reached: wait a moment, then run it again.',
    'server.error': () => 'The service, or a proxy in front of it, failed (a read was retried first): try again later.',
    'http.redirect': (error) =>
      `Check the tenant URL (${URL_FLAGS}): an answer that redirects is not the tenant’s API (an old host, http:// for https://, a login page)${given(error)}.`,
    'http.status': () => `The service refused the request: ${terms.verbose} shows the request and the answer.`,
    'response.invalid': () =>
      `The service answered in a shape the API specification does not give: report it, with ${terms.verbose}.`,
    'network.refused': network(
      `Nothing listens at the tenant URL’s host and port: check ${URL_FLAGS}, and that the service is up.`,
    ),
    'network.dns': network(
      `The tenant URL’s host name does not resolve: check its spelling (${URL_FLAGS}) and this machine’s DNS.`,
    ),
    'network.unreachable': network('The host is unreachable from here: check the network, a firewall or a proxy.'),
    'network.tls': network(
      'The TLS handshake failed: check the host’s certificate (a proxy that inspects TLS needs its CA in NODE_EXTRA_CA_CERTS).',
    ),
    'network.reset': network('The connection closed before the answer was whole: check the network, then try again.'),
    'network.failed': network(`Check the tenant URL (${URL_FLAGS}) and the network.`),
    'network.timeout': network('The service may be slow, or the network to it down: try again in a moment.'),
    'outcome.unknown': () => 'Check on the service whether the request took effect before repeating it.',
    'send.outcome_unknown': () => `Do not send it again blindly: look for it with ${terms.listLogs} first.`,
    'send.stopped': () => 'It was not sent: the batch stopped first. Send it again with the rows left.',
    'delivery.timeout': (error) =>
      `The message was sent; its delivery was not confirmed in time. Look again later with ${terms.lookAgain((error as DeliveryTimeoutError).messageLogId)}.`,
    'peer.missing': (error) => {
      const { peer } = error as MissingPeerError;
      return `Install ${peer} where the bin runs (npm install ${peer}), then run it again.`;
    },
    'webhook.missing_header': () =>
      'It is not a signed webhook: its sender must send webhook-id, webhook-timestamp and webhook-signature.',
    'webhook.malformed_header': () => 'Its webhook-timestamp is not a number of seconds: check what signs it.',
    'webhook.stale_timestamp': () =>
      'It was signed too long ago: a replay (refused on purpose), or the sender’s clock is behind (check NTP).',
    'webhook.future_timestamp': () =>
      'It was signed in the future: the sender’s or this machine’s clock is ahead (check NTP).',
    'webhook.bad_signature': () => 'Check the webhook secret: it must be the one its sender signs with.',
    'webhook.bad_body': () => 'Its sender signed a body that is not a JSON event: report it to whoever sends it.',
    'datastore.not_durable': () => 'Turn on Redis’s append-only file (appendonly yes), then start again.',
    'datastore.evicts': () => 'Set Redis’s maxmemory-policy to noeviction, then start again.',
    'datastore.forgot': () => 'Enqueue again, with the same ids, what was enqueued since the time named above.',
    'datastore.full': () => 'Give the datastore more memory or disk (or let the workers drain it), then try again.',
    'datastore.rolled_back': (error) => `Enqueue them again with the same ids: ${idsOf(error)}.`,
    'datastore.not_replicated': (error) =>
      `It is stored on the primary: do not enqueue it under a new id (${idsOf(error)}).`,
    'datastore.schema_missing': () => 'Create the queue’s tables once, with a role that may (a deployment step).',
    'sdk.unclassified': () => `If it happens again, report it with ${terms.verbose}.`,
  };
}

/** ` (given: https://…)`, when the error knows the tenant URL it was given. */
function given(error: MessagingError): string {
  return error instanceof APIError && error.baseUrl ? ` (given: ${error.baseUrl})` : '';
}

/** A datastore error's ids, the first ten. */
function idsOf(error: MessagingError): string {
  // A DatastoreError (tenant-messaging/bullmq, which the bins do not load) names its ids.
  const ids = (error as { readonly ids?: readonly string[] }).ids ?? [];
  return ids.length > 10 ? `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more` : ids.join(', ');
}
