import type { BackendFactory, IQueueBackend } from 'bullmq';
import type { BullMQModule } from '../load.js';
import type { Backend } from '../store/backend.js';
import { settlesWithin } from './close.js';

/**
 * Every BullMQ backend a relay opens (its queues, its worker, the update log's readers), made
 * through BullMQ's backend factory, its maintained extension point, so that `close()` can tear
 * down each one still open. A graceful close of BullMQ's waits on the datastore (a `QueueEvents`
 * whose connection is between two reconnection attempts never closes, and its watchdog then
 * opens the connection again, for ever); `IQueueBackend.close(true)` does not wait.
 */
export interface RelayBackends {
  /** The relayed queue's backend, whose factory records every backend made with it. */
  readonly backend: Backend;
  /** Tears down, without waiting for the datastore, every backend made so far: within `ms`. */
  closeAll(ms: number): Promise<void>;
}

export function relayBackends(bull: BullMQModule, given: Backend): RelayBackends {
  const made = new Set<IQueueBackend>();
  const base = (given.factory ?? bull.createRedisBackend) as BackendFactory;
  const factory: BackendFactory = (name, opts, options) => {
    const backend = base(name, opts, options);
    made.add(backend);
    return backend;
  };
  return {
    backend: { ...given, factory },
    closeAll: async (ms) => {
      const all = [...made];
      made.clear();
      if (await settlesWithin(Promise.all(all.map((backend) => backend.close(true))), ms)) return;
      // A backend whose graceful close was under way answers close(true) with that close, which
      // waits on the datastore: disconnect() drops its sockets and reconnection timers at once
      // (its promise may never settle: nothing waits for it).
      for (const backend of all) void backend.disconnect().catch(() => undefined);
    },
  };
}
