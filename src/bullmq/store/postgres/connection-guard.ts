/**
 * node-postgres throws a connection's `'error'` event from its socket handler when nothing
 * listens, and that ends the process. BullMQ's PostgreSQL backend listens on every connection it
 * holds, but not from the first moment: a client is handed over (its `connect()` resolved, or the
 * pool's own listener removed at checkout) and its holder adds a listener one turn later. A server
 * that ends the connection in that turn (a failover, `pg_terminate_backend`, a restart while the
 * fleet reconnects: the FATAL often arrives in the same packet as ReadyForQuery) crashed the host.
 *
 * The guard gives each of the queue's connections a listener from birth. An error that reaches
 * no other listener is kept for one turn and given to whoever listens by then (BullMQ, which then
 * rebuilds its LISTEN connection); if nobody does, the holder learns it from its next query ("not
 * queryable"), as with any connection that ended.
 *
 * It also forgets a failed start: BullMQ keeps the promise of its first readiness check, so a
 * worker whose check met a database down or restarting failed every later call with that same
 * error, without a connection tried again, until the process restarted.
 */

interface ClientLike {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  emit(event: 'error', error: unknown): boolean;
  listenerCount(event: 'error'): number;
}

type ClientClass = new (...args: never[]) => ClientLike;

const guarded = new WeakSet<object>();

/** Adds the guard's listener to one connection (once). */
export function guardClient(client: ClientLike): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', (error) => {
    if (client.listenerCount('error') > 1) return;
    setImmediate(() => {
      if (client.listenerCount('error') > 1) client.emit('error', error);
    });
  });
}

/**
 * Guards the connections of a BullMQ object on the PostgreSQL backend: the pool's clients as they
 * connect (`'connect'` is emitted before a client is handed over), and the dedicated LISTEN client
 * BullMQ makes itself from the pg module it holds (per connection: no other code's pg is touched).
 */
export function guardConnections(bullObject: unknown): void {
  const backend = (bullObject as { getBackend?: () => unknown }).getBackend?.();
  const connection = (backend as { connection?: unknown } | undefined)?.connection as
    | {
        pool?: { on?: (event: 'connect', listener: (client: ClientLike) => void) => unknown };
        pgModule?: unknown;
      }
    | undefined;
  if (!connection || guarded.has(connection)) return;
  guarded.add(connection);
  connection.pool?.on?.('connect', guardClient);
  // The connection's check is where a connection is opened: only it waits before failing.
  forgetFailedStart(backend, false);
  forgetFailedStart(connection, true);
  const pgModule = connection.pgModule as { Client?: ClientClass } | undefined;
  if (typeof pgModule?.Client === 'function') {
    const Client = pgModule.Client;
    class GuardedClient extends Client {
      constructor(...args: never[]) {
        super(...args);
        guardClient(this);
      }
    }
    // Everything else of the module as it was (read through the prototype: no getter runs).
    connection.pgModule = Object.create(pgModule, { Client: { value: GuardedClient } });
  }
}

/**
 * Makes an object's memoized readiness check (BullMQ's backend, its connection) try again after a
 * failure, and makes a failure wait before it is told: BullMQ's worker retries at once an error it
 * does not take for a connection error ("not queryable", "terminated unexpectedly"), so a database
 * that ends every new connection would otherwise get thousands of them a second. The wait doubles
 * from 250 ms to 2 s (a worker closed meanwhile waits that long at most), and starts again after a
 * check that passed.
 */
function forgetFailedStart(target: unknown, paced: boolean): void {
  const object = target as
    | { readyPromise?: Promise<unknown> | undefined; waitUntilReady?: () => Promise<unknown> }
    | undefined;
  const waitUntilReady = object?.waitUntilReady;
  if (!object || typeof waitUntilReady !== 'function') return;
  // BullMQ's constructors have started a check already: forget it too if it fails.
  const started = object.readyPromise;
  started?.catch(() => {
    if (object.readyPromise === started) object.readyPromise = undefined;
  });
  let failures = 0;
  object.waitUntilReady = async () => {
    const ready = waitUntilReady.call(object);
    const kept = object.readyPromise; // set before the method's first await
    try {
      const value = await ready;
      failures = 0;
      return value;
    } catch (error) {
      if (kept !== undefined && object.readyPromise === kept) object.readyPromise = undefined;
      if (!paced) throw error;
      const wait = Math.min(250 * 2 ** failures++, 2_000);
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      throw error;
    }
  };
}
