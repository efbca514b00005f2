/** The version path every endpoint's path is below: `<tenant base URL>/api/v1/messages`. */
export const API_PREFIX = '/api/v1';

/**
 * Every endpoint of the specification, in one table. The executor reads a row to build each
 * call (method, path template, label), the sandbox must have a route for each name, and
 * test/integration/endpoints.test.ts must have a case for each name: add a row, and the compiler lists what
 * else is missing (README, "Adding an endpoint").
 *
 * A path parameter is written `{name}` and is an id (an integer >= 1); `ids` says, for each, which
 * resource it names and where a caller gets it, for the error message of a bad one.
 *
 * @example
 * ```ts
 * ENDPOINTS.getMessage // { method: 'GET', path: '/messages/{messageLog}', scope: 'messages.read', ... }
 * ```
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
    ids: {
      messageLog: { resource: 'message log', source: 'the data.id returned by messages.send, not its message_id' },
    },
  },
  listMessages: { method: 'GET', path: '/messages', scope: 'messages.read', summary: 'List message logs' },
} as const satisfies Record<string, EndpointDefinition>;

/** The scopes an API key can carry (spec section 5). */
export const SCOPES = ['messages.send', 'messages.read', 'contacts.lookup', 'usage.read'] as const;
/** One of `messages.send`, `messages.read`, `contacts.lookup`, `usage.read`. */
export type Scope = (typeof SCOPES)[number];

/** What a path parameter names, for the message of a bad value. */
export interface IdDescription {
  /** The resource in words, e.g. `message log`. */
  readonly resource: string;
  /** Where a caller gets a valid id, e.g. `the data.id returned by messages.send`. */
  readonly source: string;
}

/** One row of the endpoint table. `scope: null` means any active key may call it. */
export interface EndpointDefinition {
  readonly method: 'GET' | 'POST';
  /** The path below `/api/v1`, with parameters as `{name}`, e.g. `/messages/{messageLog}`. */
  readonly path: string;
  readonly scope: Scope | null;
  readonly summary: string;
  /** One entry per `{name}` of the path. */
  readonly ids?: Readonly<Record<string, IdDescription>>;
}

/** The endpoints' names. */
export type EndpointName = keyof typeof ENDPOINTS;

/** The `{name}`s of a path template, e.g. `'messageLog'` for `/messages/{messageLog}`. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** The path parameters an endpoint needs: `{ messageLog: number }` for `getMessage`, `undefined` for one without. */
export type PathParams<Name extends EndpointName> = [PathParamNames<(typeof ENDPOINTS)[Name]['path']>] extends [never]
  ? undefined
  : Readonly<Record<PathParamNames<(typeof ENDPOINTS)[Name]['path']>, number>>;

/** `GET /messages/{messageLog}`: the label used in error messages and logs. */
export function endpointLabel(name: EndpointName): string {
  const { method, path } = ENDPOINTS[name];
  return `${method} ${path}`;
}
