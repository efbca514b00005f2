import { sleep } from '../../seam/timing.js';
import type { PlaceStore } from '../store/types.js';

/**
 * The fleet's hard bound: no sliding second at the service holds more than `limit` requests of
 * the fleet, whenever the service counts each one between its first byte and its answer, and
 * however long requests are held, workers stalled, or killed.
 *
 * Why not only BullMQ's limiter: it counts job STARTS, and a request is counted by the service at
 * some moment between its start and its answer. A send held 300 ms (a slow upload, a proxy that
 * buffers the body, a busy service) is counted 300 ms after a poll that started with it, so a
 * second at the service gathers starts from a span longer than a second (measured: 25 in one
 * second at a limit of 20, no crash needed).
 *
 * How: one set in the queue's datastore (a sorted set in Redis, a table in PostgreSQL: see
 * store/) holds a member per request, from its admission until one second after its
 * answer (a killed worker's open request: until its lease ends). A request is admitted only while
 * fewer than `limit` members remain. Take any second at the service and the last of its requests
 * to be admitted: every other request counted in that second had been admitted earlier, and its
 * answer came after the second began, so less than a second before that admission: its member
 * was still there. So the second holds at most `limit`. Every timestamp is the datastore's clock,
 * so the workers' clocks do not matter.
 *
 * The cost: a request holds its place for its own duration plus a second, so the fleet makes at
 * most `limit * 1000 / (1000 + r)` requests a second when answers take `r` ms (README).
 */
export interface FleetGate {
  /**
   * Runs `request` once admitted; its place is kept one second past its end. A request that
   * throws what `unsent` says never reached the service (it stopped before its POST) gives its
   * place back at once: the service counted nothing.
   */
  run<T>(request: () => Promise<T>, unsent?: (error: unknown) => boolean): Promise<T>;
}

/** The window the service counts in: the tenant limit is per second. */
const WINDOW_MS = 1000;

/** Up to this much is added to each wait (ms), so that processes waiting for one place ask apart. */
const JITTER_MS = 4;

export interface FleetGateOptions {
  /** Where the places are kept: the queue's own datastore. */
  readonly places: PlaceStore;
  /** Requests per sliding second, for the whole fleet. */
  readonly limit: number;
  /**
   * How long an open request may hold its place (ms): the client's timeout, after which a live
   * worker has given up on it. A killed worker's open requests keep their places this long.
   */
  readonly requestTimeout: number;
  readonly random?: () => number;
  /** Told when settling fails (the datastore gone): the place then ends with its lease. */
  readonly onSettleError?: (error: unknown) => void;
}

export function createFleetGate(options: FleetGateOptions): FleetGate {
  const { places, limit, requestTimeout, random = Math.random } = options;
  const lease = requestTimeout + 2 * WINDOW_MS;
  let next = 0;
  const prefix = `${process.pid}:${Date.now().toString(36)}:${random().toString(36).slice(2, 8)}`;

  const admit = async (member: string): Promise<void> => {
    for (;;) {
      const wait = await places.admit(member, limit, lease);
      if (wait === 0) return;
      // `wait` is exact when the earliest place has its answer (it ends a second after it). When
      // every place is still open, none can end within a second from now: asking again then misses
      // no place. The jitter keeps the heads of several processes from asking in the same instant.
      await sleep(Math.min(wait, WINDOW_MS) + Math.floor(random() * JITTER_MS));
    }
  };
  // One admission at a time asks the datastore from this process; the others wait in line in
  // memory, and each admission hands the turn to the next at once. So however many sends wait, a
  // process has one timer and one datastore call out (no herd at each place's end), and a killed
  // process leaves nothing behind: the line is only in its memory.
  let line: Promise<void> = Promise.resolve();
  const admitInLine = (member: string): Promise<void> => {
    const turn = line.then(() => admit(member));
    line = turn.catch(() => undefined); // a failed admission (its caller is told) does not stop the line
    return turn;
  };

  return {
    async run(request, unsent) {
      const member = `${prefix}:${next++}`;
      await admitInLine(member);
      let keep = WINDOW_MS;
      try {
        return await request();
      } catch (error) {
        if (unsent?.(error) === true) keep = 0;
        throw error;
      } finally {
        try {
          await places.settle(member, keep);
        } catch (error) {
          options.onSettleError?.(error);
        }
      }
    },
  };
}

/** No fleet limit: the request runs at once. */
export const openGate: FleetGate = { run: (request) => request() };
