// The fleet test (fleet-run.ts) on PostgreSQL (BullMQ's backend).
import { BACKENDS } from '../fixture.js';
import { fleetRun } from './fleet-run.js';

fleetRun(BACKENDS[1]);
