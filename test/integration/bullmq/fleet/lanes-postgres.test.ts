// The lanes across a fleet (lanes-run.ts) on PostgreSQL.
import { BACKENDS } from '../fixture.js';
import { lanesRun } from './lanes-run.js';

lanesRun(BACKENDS[1]);
