import { senderKey, senderLane } from '../../seam/admission.js';
import { loadPhoneTools } from '../../seam/phones.js';
import { requirePhonePeer } from '../schedule/phone-peer.js';
import type { PlaceStore, StoredParams } from '../store/types.js';

/** Sweep the ended places of unused lanes at most this often (ms). */
const SWEEP_EVERY_MS = 60_000;

/** What a send holds once admitted to its lanes: each lane's places, and its member there. */
export interface LanesHeld {
  readonly places: readonly { readonly store: PlaceStore; readonly windowMs: number }[];
  readonly member: string;
}

/**
 * The fleet's per-sender lanes and per-recipient pacing: the same rule as the one-process lanes
 * (core/rate/lanes.ts) and the fleet gate (gate.ts), with the places in the queue's datastore so
 * that every worker process of the queue shares them.
 *
 * A send whose lane is full is not waited for in the worker: `admit` says how long until a place
 * ends, and the processor puts the job back in the datastore (delayed) for that long. It then
 * holds no worker slot, no connection and no timer, and the worker takes other jobs meanwhile.
 */
export interface FleetLanes {
  /**
   * Takes a place in the send's recipient lane, then its sender's; or says how long to wait. With
   * either, `recipient`, the key of its recipient lane: the canonical number stored with the send,
   * else `to_phone` parsed now (libphonenumber-js; once per spelling per process), for the caller
   * to store; undefined without per-recipient lanes (nothing parsed, nothing loaded).
   */
  admit(data: {
    readonly params: StoredParams;
    readonly recipient?: string;
  }): Promise<
    ({ readonly held: LanesHeld } | { readonly waitMs: number }) & { readonly recipient: string | undefined }
  >;
  /**
   * Right before the send goes (after its wait at the fleet gate): true when every place is still
   * held, now for a whole lease again; false when one ended meanwhile (the send must not go).
   */
  renew(held: LanesHeld): Promise<boolean>;
  /** The send's answer came (or may have): each place ends its lane's window from now. */
  settle(held: LanesHeld): Promise<void>;
  /** The send never went out: its places end now. */
  release(held: LanesHeld): Promise<void>;
}

export interface FleetLanesOptions {
  /** The places of one lane, in the queue's datastore (`store.places(lane)`). */
  readonly places: (lane: string) => PlaceStore;
  /** Sends per sliding second per sender, when given. */
  readonly perSender: number | undefined;
  /** Ms between two sends to one recipient, when given. */
  readonly perRecipient: number | undefined;
  /** How long an open send may hold its places: the client's timeout (a killed worker's, until then). */
  readonly requestTimeout: number;
  readonly onSettleError?: (error: unknown) => void;
}

/** The option that needs libphonenumber-js here, as the missing-peer error names it. */
const PER_RECIPIENT = "MessagingWorker's rateLimit.perRecipient";

/**
 * Refuses per-recipient lanes when libphonenumber-js, an optional peer dependency, is not
 * installed. The worker calls it before it opens any connection: a connection opened by a
 * constructor that then throws would keep the process alive.
 */
export function checkFleetLanesPeer(perRecipient: number | undefined): void {
  if (perRecipient !== undefined) requirePhonePeer(PER_RECIPIENT);
}

/** The worker's lanes, or undefined when it has none (per-recipient ones checked as above too). */
export function createFleetLanes(options: FleetLanesOptions): FleetLanes | undefined {
  const { perSender, perRecipient, requestTimeout } = options;
  if (perSender === undefined && perRecipient === undefined) return undefined;
  checkFleetLanesPeer(perRecipient);
  const sender = perSender === undefined ? undefined : senderLane(perSender);
  const lease = requestTimeout + 2 * Math.max(sender?.windowMs ?? 0, perRecipient ?? 0);
  const prefix = `${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}`;
  let next = 0;
  let sweptAt = Date.now();
  const stores = new Map<string, PlaceStore>();
  const storeOf = (lane: string) => {
    let store = stores.get(lane);
    if (store === undefined) {
      // Bounded: a store is a key and two closures; the lanes in use come back at once.
      if (stores.size >= 10_000) stores.clear();
      store = options.places(lane);
      stores.set(lane, store);
    }
    return store;
  };
  const end = async (held: LanesHeld, sent: boolean) => {
    for (const { store, windowMs } of held.places) {
      try {
        await store.settle(held.member, sent ? windowMs : 0);
      } catch (error) {
        options.onSettleError?.(error); // the place then ends with its lease
      }
    }
  };

  // A send's number parsed before its first start is not stored yet: its next admission in this
  // process finds it here instead (bounded like the stores).
  const parsed = new Map<string, string>();

  const canonicalOf = async (phone: string) => {
    let canonical = parsed.get(phone);
    if (canonical === undefined) {
      canonical = (await loadPhoneTools(PER_RECIPIENT)).canonical(phone);
      if (parsed.size >= 10_000) parsed.clear();
      parsed.set(phone, canonical);
    }
    return canonical;
  };

  return {
    async admit({ params, recipient: stored }) {
      const lanes: { store: PlaceStore; limit: number; windowMs: number }[] = [];
      let recipient: string | undefined;
      if (perRecipient !== undefined) {
        recipient = stored ?? (await canonicalOf(params.to_phone));
        lanes.push({ store: storeOf(`r:${recipient}`), limit: 1, windowMs: perRecipient });
      }
      if (sender !== undefined) {
        lanes.push({ store: storeOf(`s:${senderKey(params)}`), ...sender });
      }
      if (Date.now() - sweptAt > SWEEP_EVERY_MS) {
        sweptAt = Date.now();
        lanes[0]?.store.sweep().catch((error: unknown) => options.onSettleError?.(error));
      }
      const held: LanesHeld = { places: [], member: `${prefix}:${next++}` };
      for (const lane of lanes) {
        const wait = await lane.store.admit(held.member, lane.limit, lease);
        if (wait > 0) {
          await end(held, false);
          // Within a window: the earliest place has its answer, and ends then (exactly known).
          if (wait <= lane.windowMs) return { waitMs: wait, recipient };
          // Every place is still open (its send in flight; it ends a window after its answer):
          // a turn, a window from now at the earliest, shared by a lane's worth of sends, turns
          // a window apart. Many sends waiting for one busy lane then come back a lane's worth
          // at a time, not all at once (each a job start and a round trip) and again every window.
          return { waitMs: await lane.store.reserve(lane.windowMs, lane.windowMs, lane.limit), recipient };
        }
        (held.places as LanesHeld['places'][number][]).push({ store: lane.store, windowMs: lane.windowMs });
      }
      return { held, recipient };
    },
    async renew(held) {
      for (const { store } of held.places) if (!(await store.renew(held.member, lease))) return false;
      return true;
    },
    settle: (held) => end(held, true),
    release: (held) => end(held, false),
  };
}
