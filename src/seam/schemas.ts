/** The SDK's schemas, loaded on first use (seam for the fleet, README.md). */
export { loadSchemas } from '../schemas/load.js';
