/** The version path every endpoint's path is below: `<tenant base URL>/api/v1/messages`. */
export const API_PREFIX = '/api/v1';

/**
 * Every endpoint of the specification, in one table: the SDK's resources and the sandbox's
 * routes both read it, so they cannot disagree on a path, a method or a scope.
 */
export const ENDPOINTS = {
  me: { method: 'GET', path: '/me', scope: null, summary: 'Tenant identity and runtime context' },
  subscription: { method: 'GET', path: '/subscription', scope: null, summary: 'Subscription status' },
  usage: { method: 'GET', path: '/usage', scope: 'usage.read', summary: 'Usage counters and limits' },
  listSenderNumbers: { method: 'GET', path: '/sender-numbers', scope: null, summary: 'List sender numbers' },
  lookupContact: {
    method: 'GET',
    path: '/contacts/lookup',
    scope: 'contacts.lookup',
    summary: 'Check whether a recipient can receive messages',
  },
  sendMessage: { method: 'POST', path: '/messages', scope: 'messages.send', summary: 'Send a text or media message' },
  getMessage: {
    method: 'GET',
    path: '/messages/{messageLog}',
    scope: 'messages.read',
    summary: 'Read one message log and its current delivery_status',
  },
  listMessages: { method: 'GET', path: '/messages', scope: 'messages.read', summary: 'List message logs' },
} as const satisfies Record<string, EndpointDefinition>;

/** The scopes an API key can carry (spec section 5). */
export const SCOPES = ['messages.send', 'messages.read', 'contacts.lookup', 'usage.read'] as const;
/** One of `messages.send`, `messages.read`, `contacts.lookup`, `usage.read`. */
export type Scope = (typeof SCOPES)[number];

/** One row of the endpoint table. `scope: null` means any active key may call it. */
export interface EndpointDefinition {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly scope: Scope | null;
  readonly summary: string;
}

/** The endpoints' names. */
export type EndpointName = keyof typeof ENDPOINTS;

/** `GET /messages/{messageLog}`: the label used in error messages and logs. */
export function endpointLabel(name: EndpointName): string {
  const { method, path } = ENDPOINTS[name];
  return `${method} ${path}`;
}
