import { API_PREFIX, ENDPOINTS, type EndpointDefinition, type EndpointName, endpointLabel } from '../../endpoints.js';
import { sleep } from '../../internal/waiting/sleep.js';
import { applyAfterFaults, dropped, faultResponse } from '../faults/fault-responses.js';
import { type FaultController, MEDIA_ROUTE } from '../faults/faults.js';
import { errorResponse } from '../http/laravel.js';
import { negotiate } from '../http/negotiate.js';
import type { LaneLimiter } from '../limits/lane-limits.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import { phoneKey } from '../state/phones.js';
import type { RequestLog } from '../state/request-log.js';
import type { SandboxState } from '../state/state.js';
import { authenticate } from './auth.js';
import { BINDINGS, ROUTES, type RouteContext } from './routes.js';
import type { ValidSend } from './send-request.js';

/** Everything the request handler reads and changes. */
export interface AppDeps {
  readonly state: SandboxState;
  readonly faults: FaultController;
  readonly rateLimiter: RateLimiter;
  readonly laneLimiter: LaneLimiter;
  readonly requestLog: RequestLog;
}

/** `/messages/{messageLog}` -> /^\/messages\/(?<messageLog>\d+)$/: the table's templates as patterns. */
const PATTERNS = (Object.keys(ENDPOINTS) as EndpointName[]).map((name) => {
  const endpoint: EndpointDefinition = ENDPOINTS[name];
  const source = endpoint.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>\\d+)');
  return { name, endpoint, label: endpointLabel(name), pattern: new RegExp(`^${source}$`) };
});

const TENANT_PATH = /^\/t\/(?<slug>[^/]+)(?<rest>\/.*)?$/;

/** Laravel's message for a path no route matches. */
function routeNotFound(path: string): Response {
  return errorResponse(404, `The route ${path.replace(/^\//, '')} could not be found.`);
}

/**
 * Builds the sandbox's request handler: web-standard `Request` in, `Response` out, so one
 * implementation serves the node:http server, the in-process `fetch` and msw alike.
 * Order, as in a Laravel app under its default middleware priority: route match (404/405), post
 * size, faults, auth (401), throttle (429), route-model binding (404), scope (403), then the
 * endpoint (validation: 422; then a send's lanes: 429, see routes.ts). A client that does not
 * ask for JSON gets what Laravel sends it (see `negotiate`).
 */
export function createHandler(deps: AppDeps): (request: Request) => Promise<Response> {
  const { state, faults, rateLimiter, laneLimiter, requestLog } = deps;
  let requestCount = 0;

  return async function handle(request: Request): Promise<Response> {
    return negotiate(request, await answer(request), new URL(request.url).origin);
  };

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const requestId = `sbx-${String(++requestCount).padStart(6, '0')}`;
    const tenantMatch = TENANT_PATH.exec(url.pathname);
    const tenant = tenantMatch?.groups?.['slug'] ? state.tenants.get(tenantMatch.groups['slug']) : undefined;
    const rest = tenantMatch?.groups?.['rest'] ?? '/';
    if (!tenant) {
      state.count('unmatched');
      return routeNotFound(url.pathname);
    }
    const tenantBase = `${url.origin}/t/${tenant.slug}`;

    if (rest.startsWith('/media/')) {
      state.count(MEDIA_ROUTE);
      if (request.method !== 'GET') return methodNotAllowed(request.method, url.pathname, ['GET']);
      return withFaults(MEDIA_ROUTE, tenant.slug, async () => serveMedia(rest.slice(7), tenant.slug));
    }

    const apiPath = rest.startsWith(`${API_PREFIX}/`) ? rest.slice(API_PREFIX.length) : undefined;
    const candidates =
      apiPath === undefined
        ? []
        : PATTERNS.flatMap((p) => {
            const found = p.pattern.exec(apiPath);
            return found ? [{ ...p, params: { ...found.groups } }] : [];
          });
    if (candidates.length === 0) {
      state.count('unmatched');
      return routeNotFound(url.pathname);
    }
    const chosen = candidates.find((c) => c.endpoint.method === request.method);
    if (!chosen) {
      state.count('unmatched');
      return methodNotAllowed(
        request.method,
        url.pathname,
        candidates.map((c) => c.endpoint.method),
      );
    }
    state.count(chosen.label);

    return withFaults(chosen.label, tenant.slug, async () => {
      const tooLarge = postTooLarge(request, state.maxMediaBytes);
      if (tooLarge) return tooLarge;
      const auth = authenticate(request, tenant, state.now());
      if ('response' in auth) return auth.response;
      const verdict = rateLimiter.hit(`${tenant.slug}:${auth.key.id}`);
      if (verdict && !verdict.allowed) return errorResponse(429, 'Too Many Attempts.', verdict.headers);
      // One instant per request: the throttle's, the lanes' and the request log's, so what the log
      // shows is what the limits counted. Logged once the route has run (a send needs its body).
      const at = state.now();
      let logged = false;
      const admitSend = (send: ValidSend): Response | undefined => {
        logged = true;
        const sender = phoneKey(send.sender.phone);
        const recipient = phoneKey(send.toPhone);
        const refusal = laneLimiter.admit(send.sender.id, recipient, at);
        if (refusal) return errorResponse(429, 'Too Many Attempts.', refusal);
        requestLog.record(at, tenant.slug, chosen.label, { sender, recipient });
        return undefined;
      };
      const scope = chosen.endpoint.scope;
      const ctx: RouteContext = {
        state,
        tenant,
        key: auth.key,
        request,
        url,
        tenantBase,
        params: chosen.params,
        admitSend,
      };
      let response: Response;
      try {
        // Why binding first: SubstituteBindings runs before the scope check (a route middleware), so
        // another tenant's log read with a key lacking messages.read is a 404, as in the real service.
        response =
          BINDINGS[chosen.name]?.(ctx) ??
          (scope !== null && !auth.key.scopes.includes(scope)
            ? errorResponse(403, 'The API key does not include the required scope.')
            : await ROUTES[chosen.name](ctx));
      } finally {
        if (!logged) requestLog.record(at, tenant.slug, chosen.label);
      }
      // Laravel's ThrottleRequests::getHeaders: an answer that already says no more requests remain
      // than the key has left (a lane's 429) keeps its own X-RateLimit headers; others get the key's.
      const remaining = response.headers.get('x-ratelimit-remaining');
      if (verdict && !(remaining !== null && Number(remaining) <= Number(verdict.headers['x-ratelimit-remaining']))) {
        for (const [name, value] of Object.entries(verdict.headers)) response.headers.set(name, value);
      }
      return response;
    });

    /** Runs the route with the faults that fire for it, and stamps the request id. */
    async function withFaults(route: string, slug: string, run: () => Promise<Response>): Promise<Response> {
      const fired = faults.draw(route, request.method, slug);
      const latency = fired.find((f) => f.kind === 'latency');
      // Less if the client went away meanwhile: the request then carries on (and is dropped).
      if (latency) await sleep(latency.latencyMs ?? 1000, request.signal).catch(() => undefined);
      const before = faultResponse(fired);
      if (before) return before;
      const response = await run();
      const after = await applyAfterFaults(fired, response, request.signal);
      if (!dropped(after)) after.headers.set('x-request-id', requestId);
      return after;
    }
  }

  function serveMedia(token: string, slug: string): Response {
    const stored = state.media.get(token);
    if (!stored || stored.tenant !== slug) return errorResponse(404, 'Not found.');
    return new Response(stored.bytes.slice(), {
      status: 200,
      headers: {
        'content-type': stored.contentType,
        'content-length': String(stored.bytes.byteLength),
        'cache-control': 'private, max-age=3600',
      },
    });
  }
}

/** Laravel's 405 message, listing the methods the path supports (HEAD comes with GET). */
function methodNotAllowed(method: string, path: string, allowed: string[]): Response {
  const methods = [...new Set(allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].sort();
  return errorResponse(
    405,
    `The ${method} method is not supported for route ${path.replace(/^\//, '')}. Supported methods: ${methods.join(', ')}.`,
    { allow: methods.join(', ') },
  );
}

/**
 * Laravel's ValidatePostSize: a declared body far over the media limit is refused before it is
 * read, so a huge upload is not buffered just to be rejected.
 */
function postTooLarge(request: Request, maxMediaBytes: number): Response | undefined {
  const length = Number(request.headers.get('content-length') ?? 0);
  // `!(>)`: a Content-Length that is no number (NaN) declares nothing, so it is not "too large".
  if (!(length > maxMediaBytes + 1024 * 1024)) return undefined;
  return errorResponse(413, 'The POST data is too large.', { connection: 'close' });
}
