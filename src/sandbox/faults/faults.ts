import { ENDPOINTS, type EndpointName, endpointLabel } from '../../endpoints.js';
import { seededRandom } from './random.js';

/**
 * What an injected fault does:
 * - `latency`: waits `latencyMs`, then handles the request normally (combines with the others);
 * - `status`: answers `status` (default 503) with `{ message }`, before the request is processed;
 * - `drop`: destroys the connection with no response (`when: 'after'`: after the request was processed);
 * - `truncated`: processes the request, then sends only the first half of the JSON body;
 * - `malformed`: processes the request, then sends a body that is not valid JSON;
 * - `html`: answers 502 with an HTML error page, as a proxy in front of the API would;
 * - `stall`: processes the request, sends the headers and half the body, then stalls until the client goes away;
 * - `huge`: processes the request, then answers 200 with a JSON body of `hugeBytes` bytes;
 * - `lost-answer`: processes the request (a send is stored, as a successful send would be), then
 *   drops the connection before answering: the client sees a connection error for a message that
 *   was sent (the same as `drop` with `when: 'after'`, under a name that says what it tests).
 */
export type FaultKind =
  | 'latency'
  | 'status'
  | 'drop'
  | 'truncated'
  | 'malformed'
  | 'html'
  | 'stall'
  | 'huge'
  | 'lost-answer';

/** A route a fault targets: an endpoint name (`sendMessage`) or its label (`POST /messages`). */
export type FaultRoute = EndpointName | `${'GET' | 'POST'} ${string}`;

/**
 * One fault switch. It matches requests by route, method and tenant, then fires on the next
 * `times` matches, or on each match with probability `ratio` (from the seeded random source).
 *
 * @example
 * ```ts
 * sandbox.faults.add({ kind: 'status', status: 503, route: 'POST /messages', times: 2 })
 * sandbox.faults.add({ kind: 'latency', latencyMs: 200, ratio: 0.5 })
 * ```
 */
export interface FaultRule {
  kind: FaultKind;
  /**
   * Only requests to this route.
   * @default every API route (media downloads included)
   */
  route?: FaultRoute;
  /**
   * Only requests with this method.
   * @default any method
   */
  method?: 'GET' | 'POST';
  /**
   * Only requests to this tenant.
   * @default every tenant
   */
  tenant?: string;
  /**
   * Fire on the next N matching requests, then stop.
   * @default unlimited when `ratio` is given, else 1
   */
  times?: number;
  /**
   * Fire on each matching request with this probability (0 to 1).
   * @default 1
   */
  ratio?: number;
  /**
   * Milliseconds added by a `latency` fault.
   * @default 1000
   */
  latencyMs?: number;
  /**
   * Status of a `status` fault.
   * @default 503
   */
  status?: number;
  /**
   * Size of the body a `huge` fault sends.
   * @default 64 MiB
   */
  hugeBytes?: number;
  /**
   * For `drop` and `status`: fail before the request is processed, or after (the send is then stored).
   * @default 'before'
   */
  when?: 'before' | 'after';
}

/** A fault that is switched on; `injected` counts how often it fired. */
export interface ActiveFault {
  readonly id: number;
  readonly rule: Readonly<FaultRule>;
  /** How many requests it affected. */
  readonly injected: number;
  /** Times it may still fire; Infinity when unlimited. */
  readonly remaining: number;
}

interface Entry {
  id: number;
  rule: FaultRule;
  /** The rule's route as a label (`POST /messages`), resolved once when the fault is added. */
  label: string | undefined;
  injected: number;
  remaining: number;
}

/**
 * The fault switches of a sandbox: off until added, changeable at run time.
 *
 * @example
 * ```ts
 * const fault = sandbox.faults.add({ kind: 'drop', route: 'sendMessage' })
 * // ... exercise the client ...
 * expect(sandbox.faults.injected).toBe(1)
 * sandbox.faults.clear()
 * ```
 */
export class FaultController {
  #entries: Entry[] = [];
  #nextId = 1;
  #random: () => number;
  #injected: Record<string, number> = {};

  /** @param seed seed of the random source deciding `ratio` faults. */
  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }

  /** Switches a fault on; returns it (read its `injected` count later with `list()`). */
  add(rule: FaultRule): ActiveFault {
    if (rule.ratio !== undefined && !(rule.ratio >= 0 && rule.ratio <= 1)) {
      throw new RangeError(`A fault's ratio must be between 0 and 1, got ${rule.ratio}.`);
    }
    const label = rule.route === undefined ? undefined : routeLabel(rule.route);
    if (rule.route !== undefined && label === undefined) {
      throw new Error(`Unknown fault route '${rule.route}'. Use an endpoint name or a label like 'POST /messages'.`);
    }
    const remaining = rule.times ?? (rule.ratio === undefined ? 1 : Number.POSITIVE_INFINITY);
    const entry: Entry = { id: this.#nextId++, rule: { ...rule }, label, injected: 0, remaining };
    this.#entries.push(entry);
    return this.#view(entry);
  }

  /** Switches every fault off (the counts are kept until `reset`). */
  clear(): void {
    this.#entries = [];
  }

  /** Switches off every fault and zeroes the counts; reseeds the random source. */
  reset(seed: number): void {
    this.#entries = [];
    this.#injected = {};
    this.#random = seededRandom(seed);
  }

  /** The faults switched on, with their counts. */
  list(): ActiveFault[] {
    return this.#entries.map((entry) => this.#view(entry));
  }

  /** How many faults were injected in all. */
  get injected(): number {
    return Object.values(this.#injected).reduce((sum, n) => sum + n, 0);
  }

  /** How many faults were injected, by kind. */
  get injectedByKind(): Readonly<Record<string, number>> {
    return { ...this.#injected };
  }

  /**
   * The faults firing for this request, at most one of each kind, in the order they were added.
   * @internal used by the request handler
   */
  draw(route: string, method: string, tenant: string): FaultRule[] {
    const fired: FaultRule[] = [];
    let spent = false;
    for (const entry of this.#entries) {
      const { rule } = entry;
      if (entry.remaining <= 0) {
        spent = true;
        continue;
      }
      if (fired.some((f) => f.kind === rule.kind)) continue;
      if (entry.label !== undefined && entry.label !== route) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.tenant !== undefined && rule.tenant !== tenant) continue;
      if (rule.ratio !== undefined && this.#random() >= rule.ratio) continue;
      entry.remaining--;
      entry.injected++;
      this.#injected[rule.kind] = (this.#injected[rule.kind] ?? 0) + 1;
      fired.push(rule);
      if (entry.remaining <= 0) spent = true;
    }
    // The list is copied only when a fault is used up, not on every request.
    if (spent) this.#entries = this.#entries.filter((entry) => entry.remaining > 0);
    return fired;
  }

  #view(entry: Entry): ActiveFault {
    return {
      id: entry.id,
      rule: entry.rule,
      get injected() {
        return entry.injected;
      },
      get remaining() {
        return entry.remaining;
      },
    };
  }
}

/** `sendMessage` or `POST /messages` -> `POST /messages`; undefined for an unknown route. */
function routeLabel(route: FaultRoute): string | undefined {
  if (route in ENDPOINTS) return endpointLabel(route as EndpointName);
  return ROUTE_LABELS.includes(route) ? route : undefined;
}

/** The label of the media download route, which is outside the endpoint table. */
export const MEDIA_ROUTE = 'GET /media/{token}';

/** Every route a fault can name by label. */
const ROUTE_LABELS: readonly string[] = [
  ...Object.keys(ENDPOINTS).map((name) => endpointLabel(name as EndpointName)),
  MEDIA_ROUTE,
];
