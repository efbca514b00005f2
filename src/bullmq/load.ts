import type * as BullMQ from 'bullmq';
import { MissingPeerError } from '../index.js';
import { requirePeer } from '../seam/peers.js';

/** The `bullmq` module. */
export type BullMQModule = typeof BullMQ;

/** What to install, said once for every way the load can fail. */
export const INSTALL_HINT =
  'tenant-messaging/bullmq needs bullmq (^6), an optional peer dependency that is not installed: run `npm install bullmq ioredis` for Redis (and start a Redis server, e.g. `apt-get install -y redis-server`), or `npm install bullmq pg` for PostgreSQL.';

let loaded: BullMQModule | undefined;

/**
 * Loads `bullmq` the first time this entry needs it. It is an optional peer dependency, and the
 * main entry never loads it (importing it costs a cold start a few hundred ms), so it is resolved
 * from this file, as a peer dependency must be, and a missing install becomes our own error that
 * says what to install instead of Node's "Cannot find package". `load` is injectable for tests.
 */
export function loadBullmq(load: (name: string) => unknown = requirePeer): BullMQModule {
  if (loaded) return loaded;
  try {
    // ioredis or pg, whichever the connection needs, is checked when a connection is given (backend.ts).
    const module = load('bullmq') as BullMQModule;
    if (load === requirePeer) loaded = module;
    return module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new MissingPeerError(INSTALL_HINT, 'bullmq', 'npm install bullmq ioredis', error);
  }
}
