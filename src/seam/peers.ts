/** An optional peer, loaded from the package's own location (seam for the fleet, README.md). */
export { requirePeer, resolvePeer } from '../internal/runtime/peer-require.js';
