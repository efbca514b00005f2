// The fleet test (fleet-run.ts) on Redis.
import { BACKENDS } from '../fixture.js';
import { fleetRun } from './fleet-run.js';

fleetRun(BACKENDS[0]);
