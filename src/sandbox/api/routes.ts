import { createHash } from 'node:crypto';
import type { EndpointName } from '../../endpoints.js';
import { mediaToken } from '../faults/random.js';
import {
  errorResponse,
  type FieldErrors,
  json,
  laravelDate,
  paginate,
  positiveInt,
  rules,
  validationResponse,
} from '../http/laravel.js';
import { readInput } from '../http/request-body.js';
import { isPhone, isReachable } from '../state/phones.js';
import type { SandboxState, UploadRecord } from '../state/state.js';
import { type ApiKey, DAY, type Tenant } from '../state/tenants.js';
import { TYPES, type ValidSend, validateSend } from './send-request.js';

/** What a route handler gets: the authenticated tenant and key, and the request. */
export interface RouteContext {
  readonly state: SandboxState;
  readonly tenant: Tenant;
  readonly key: ApiKey;
  readonly request: Request;
  readonly url: URL;
  /** `<origin>/t/<slug>`: the tenant's base URL as this request reached it. */
  readonly tenantBase: string;
  /** Path parameters, e.g. `{ messageLog: '42' }`. */
  readonly params: Readonly<Record<string, string>>;
  /**
   * Passes a valid send through the per-sender and per-pair lanes and records it in the request
   * log with its sender and recipient: undefined when admitted, else the 429 to answer.
   */
  readonly admitSend: (send: ValidSend) => Response | undefined;
}

type Route = (ctx: RouteContext) => Response | Promise<Response>;

/** The start of the current billing period: the first day of this month, UTC. */
function billingPeriod(now: number): { start: number; end: number } {
  const date = new Date(now);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return { start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - 1 };
}

/** Messages the tenant sent in the billing period of `now`. */
function sentThisPeriod(ctx: Pick<RouteContext, 'state' | 'tenant'>, now: number) {
  const { start } = billingPeriod(now);
  return ctx.state.logsOf(ctx.tenant.slug).filter((log) => log.sentAt >= start);
}

/** Laravel's message for a failed route-model binding of a log id. */
function noSuchLog(id: string | undefined): Response {
  return errorResponse(404, `No query results for model [App\\Models\\MessageLog] ${id}`);
}

/**
 * Route-model bindings: they run before the scope check (see app.ts) and answer 404 when the
 * model is not in this tenant's workspace (a log of another tenant is scoped out the same way).
 */
export const BINDINGS: Partial<Record<EndpointName, (ctx: RouteContext) => Response | undefined>> = {
  getMessage: ({ state, tenant, params }) => {
    const id = Number(params['messageLog']);
    return id >= 1 && state.findLog(tenant.slug, id) ? undefined : noSuchLog(params['messageLog']);
  },
};

/** One handler per endpoint of the table; the table's name is the key, so none can be missing. */
export const ROUTES: Record<EndpointName, Route> = {
  me: ({ state, tenant, key }) =>
    json(200, {
      data: {
        tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, created_at: laravelDate(tenant.createdAt) },
        api_key: {
          id: key.id,
          name: `Sandbox ${key.role} key`,
          prefix: key.key.slice(0, 12),
          scopes: key.scopes,
          expires_at: key.expiresAt === null ? null : laravelDate(key.expiresAt),
        },
        environment: 'sandbox',
        api_version: '1.1.0',
        server_time: laravelDate(state.now()),
      },
    }),

  subscription: ({ state, tenant }) => {
    const period = billingPeriod(state.now());
    return json(200, {
      data: {
        status: tenant.subscriptionStatus,
        plan: { code: 'growth', name: 'Growth', message_limit: tenant.messageLimit },
        current_period_start: laravelDate(period.start),
        current_period_end: laravelDate(period.end),
        trial_ends_at: null,
        cancel_at_period_end: false,
        manage_url: 'https://dashboard.sandbox.test/billing',
      },
    });
  },

  usage: (ctx) => {
    const now = ctx.state.now();
    const period = billingPeriod(now);
    const logs = sentThisPeriod(ctx, now);
    const byType: Record<string, number> = Object.fromEntries(TYPES.map((type) => [type, 0]));
    for (const log of logs) byType[log.type] = (byType[log.type] ?? 0) + 1;
    const limit = ctx.tenant.messageLimit;
    return json(200, {
      data: {
        period: { start: laravelDate(period.start), end: laravelDate(period.end) },
        messages: { sent: logs.length, limit, remaining: Math.max(0, limit - logs.length) },
        messages_by_type: byType,
        media_bytes: logs.reduce((sum, log) => sum + log.mediaBytes, 0),
      },
    });
  },

  listSenderNumbers: ({ tenant }) =>
    json(200, {
      data: tenant.senderNumbers.map((n) => ({
        id: n.id,
        phone: n.phone,
        display_name: n.displayName,
        status: n.status,
        can_send: n.status === 'active',
        verified_at: n.status === 'active' ? laravelDate(tenant.createdAt + DAY) : null,
        created_at: laravelDate(tenant.createdAt),
      })),
    }),

  lookupContact: ({ url, tenant }) => {
    const phone = url.searchParams.get('phone') ?? '';
    const senderPhone = url.searchParams.get('sender_phone') ?? '';
    const errors: FieldErrors = {};
    if (!phone) errors['phone'] = [rules.required('phone')];
    else if (!isPhone(phone)) errors['phone'] = [rules.format('phone')];
    const sender = tenant.senderNumbers.find((n) => n.phone === senderPhone);
    if (!senderPhone) errors['sender_phone'] = [rules.required('sender_phone')];
    else if (!sender) errors['sender_phone'] = [rules.selected('sender_phone')];
    if (Object.keys(errors).length > 0 || !sender) return validationResponse(errors);
    const reachable = isReachable(phone);
    return json(200, {
      data: {
        phone,
        sender_phone: senderPhone,
        sender_number_id: sender.id,
        reachable,
        reason: reachable ? null : 'The recipient has no messaging account.',
      },
    });
  },

  sendMessage: async (ctx) => {
    const { state, tenant } = ctx;
    const checked = validateSend(await readInput(ctx.request), tenant, state.maxMediaBytes);
    if ('errors' in checked) return validationResponse(checked.errors);
    const { send } = checked;
    if (send.sender.status !== 'active') {
      return validationResponse({
        [send.senderField]: [`The sender number is not active yet (${send.sender.status}).`],
      });
    }
    if (!isReachable(send.toPhone)) {
      return validationResponse({ to_phone: ['The recipient cannot receive messages.'] });
    }
    if (sentThisPeriod(ctx, ctx.state.now()).length >= tenant.messageLimit) {
      // 422, not 429: a quota does not reset in seconds, and 429 invites clients to retry a send.
      // The application's own JSON answer (not a framework exception): JSON whatever `Accept` says.
      return json(422, {
        message: `The message limit of your plan (${tenant.messageLimit} per period) has been reached. Upgrade your plan in the dashboard.`,
      });
    }
    // Why here, after every 422, while Laravel's `throttle` middleware runs before the controller
    // validates: a lane's key is the sender number the body resolves to (`sender_phone` or
    // `sender_number_id`), known only once the body is read and checked. So the lanes sit where
    // the service would apply them itself (`RateLimiter::tooManyAttempts` / `hit` on the validated
    // send): a body answered 422 never counts against a lane, and both ways of naming a number share one.
    const refused = ctx.admitSend(send);
    if (refused) return refused;
    const file = send.media;
    const bytes = file ? new Uint8Array(await file.arrayBuffer()) : undefined;
    const token = file ? mediaToken() : '';
    const mediaUrl = file ? `${ctx.tenantBase}/media/${token}` : null;
    const log = state.addLog({
      tenant: tenant.slug,
      senderNumberId: send.sender.id,
      toPhone: send.toPhone,
      type: send.type,
      content: send.content,
      requestPayload: send.payload,
      mediaUrl,
      mediaBytes: bytes?.byteLength ?? 0,
    });
    if (file && bytes && mediaUrl) {
      const upload: UploadRecord = {
        tenant: tenant.slug,
        logId: log.id,
        filename: file.name,
        contentType: file.type || 'application/octet-stream',
        size: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes,
        mediaUrl,
      };
      state.media.set(token, upload);
      state.uploads.push(upload);
    }
    return json(201, { data: state.toMessageLog(log) });
  },

  getMessage: ({ state, tenant, params }) => {
    const log = state.findLog(tenant.slug, Number(params['messageLog']));
    if (!log) return noSuchLog(params['messageLog']);
    return json(200, { data: state.toMessageLog(log) });
  },

  listMessages: ({ state, tenant, url }) => {
    // `->paginate(n)`: Laravel's paginator reads `page` only; `per_page` is ignored (and not kept
    // in the links) unless the application reads it, which the real service does not.
    const perPage = state.pageSize;
    const page = positiveInt(url.searchParams.get('page'), 1);
    const keep: Record<string, string> = {};
    // Newest first: ids grow with time, so a descending id order is a descending send order.
    const logs = state.logsOf(tenant.slug).sort((a, b) => b.id - a.id);
    const envelope = paginate(logs, { path: `${url.origin}${url.pathname}`, page, perPage, keep });
    envelope['data'] = (envelope['data'] as typeof logs).map((log) => state.toMessageLog(log));
    return json(200, envelope);
  },
};
