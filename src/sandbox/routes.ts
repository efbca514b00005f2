import { createHash } from 'node:crypto';
import type { EndpointName } from '../endpoints.js';
import { errorResponse, json, laravelDate, paginate, positiveInt, validationResponse } from './laravel.js';
import { SANDBOX_DEFAULTS } from './options.js';
import { isPhone, isReachable } from './phones.js';
import { mediaToken } from './random.js';
import { readInput, validateSend } from './send-request.js';
import type { SandboxState } from './state.js';
import type { ApiKey, Tenant } from './tenants.js';

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
}

type Route = (ctx: RouteContext) => Response | Promise<Response>;

const DAY = 86_400_000;

/** The start of the current billing period: the first day of this month, UTC. */
function periodStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function periodEnd(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - 1;
}

/** Messages the tenant sent in the current period. */
function sentThisPeriod(ctx: Pick<RouteContext, 'state' | 'tenant'>) {
  const start = periodStart(ctx.state.now());
  return ctx.state.logsOf(ctx.tenant.slug).filter((log) => log.sentAt >= start);
}

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
    const now = state.now();
    return json(200, {
      data: {
        status: tenant.subscriptionStatus,
        plan: { code: 'growth', name: 'Growth', message_limit: tenant.messageLimit },
        current_period_start: laravelDate(periodStart(now)),
        current_period_end: laravelDate(periodEnd(now)),
        trial_ends_at: null,
        cancel_at_period_end: false,
        manage_url: 'https://dashboard.sandbox.test/billing',
      },
    });
  },

  usage: (ctx) => {
    const now = ctx.state.now();
    const logs = sentThisPeriod(ctx);
    const byType: Record<string, number> = { text: 0, image: 0, voice: 0, document: 0 };
    for (const log of logs) byType[log.type] = (byType[log.type] ?? 0) + 1;
    const limit = ctx.tenant.messageLimit;
    return json(200, {
      data: {
        period: { start: laravelDate(periodStart(now)), end: laravelDate(periodEnd(now)) },
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
    const errors: Record<string, string[]> = {};
    if (!phone) errors['phone'] = ['The phone field is required.'];
    else if (!isPhone(phone)) errors['phone'] = ['The phone field format is invalid.'];
    const sender = tenant.senderNumbers.find((n) => n.phone === senderPhone);
    if (!senderPhone) errors['sender_phone'] = ['The sender phone field is required.'];
    else if (!sender) errors['sender_phone'] = ['The selected sender phone is invalid.'];
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
        [send.senderField]: [`The sender number ${send.sender.phone} is not active (status: ${send.sender.status}).`],
      });
    }
    if (!isReachable(send.toPhone)) {
      return validationResponse({ to_phone: ['The recipient cannot receive messages.'] });
    }
    if (sentThisPeriod(ctx).length >= tenant.messageLimit) {
      // 422, not 429: a quota does not reset in seconds, and 429 invites clients to retry a send.
      return errorResponse(
        422,
        `The message limit of your plan (${tenant.messageLimit} per period) has been reached. Upgrade your plan in the dashboard.`,
      );
    }
    let mediaUrl: string | null = null;
    let bytes: Uint8Array | undefined;
    let token = '';
    if (send.media) {
      bytes = new Uint8Array(await send.media.arrayBuffer());
      token = mediaToken();
      mediaUrl = `${ctx.tenantBase}/media/${token}`;
    }
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
    if (send.media && bytes && mediaUrl) {
      const contentType = send.media.type || 'application/octet-stream';
      state.media.set(token, { tenant: tenant.slug, contentType, bytes });
      state.uploads.push({
        tenant: tenant.slug,
        logId: log.id,
        filename: send.media.name,
        contentType,
        size: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes,
        mediaUrl,
      });
    }
    return json(201, { data: state.toMessageLog(log) });
  },

  getMessage: ({ state, tenant, params }) => {
    const id = Number(params['messageLog']);
    const log = id >= 1 ? state.findLog(tenant.slug, id) : undefined;
    // Laravel's route-model binding message; a log of another tenant is scoped out the same way.
    if (!log) return errorResponse(404, `No query results for model [App\\Models\\MessageLog] ${params['messageLog']}`);
    return json(200, { data: state.toMessageLog(log) });
  },

  listMessages: ({ state, tenant, url }) => {
    const perPage = positiveInt(
      url.searchParams.get('per_page'),
      SANDBOX_DEFAULTS.perPage,
      SANDBOX_DEFAULTS.maxPerPage,
    );
    const page = positiveInt(url.searchParams.get('page'), 1);
    const keep: Record<string, string> = {};
    if (url.searchParams.has('per_page')) keep['per_page'] = String(perPage);
    // Newest first: ids grow with time, so a descending id order is a descending send order.
    const logs = state.logsOf(tenant.slug).sort((a, b) => b.id - a.id);
    const envelope = paginate(logs, { path: `${url.origin}${url.pathname}`, page, perPage, keep });
    envelope['data'] = (envelope['data'] as typeof logs).map((log) => state.toMessageLog(log));
    return json(200, envelope);
  },
};
