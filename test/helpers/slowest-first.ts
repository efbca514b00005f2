/**
 * The suite's order on a machine that has never run it. Vitest starts the files it timed before
 * longest first; on a fresh clone (CI) it has no timings and starts the largest files first, and
 * a 26 s file of 3 KB that spawns the bench then started among the last, with the other workers
 * idle behind it (about 8 s of the run). The files below took 5 s or more in a full run; they
 * start first, in this order, and everything else keeps vitest's order. A new slow file belongs
 * here (the run's log prints each file's time); one missing only starts later.
 */
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

export const SLOWEST = [
  'test/bench-smoke.test.ts',
  // A relay delivering to 1,000 endpoints: several times longer beside the suite than alone.
  'test/bullmq/webhooks/scale.test.ts',
  'test/bullmq/webhooks/relay.test.ts',
  'test/many-sandbox.test.ts',
  'test/bullmq/topologies/cluster-failover.test.ts',
  'test/bullmq/send/states.test.ts',
  'packages/cli/test/send-many.test.ts',
  'test/soak.test.ts',
  'test/examples.test.ts',
  'test/bullmq/faults/redis-restarts.test.ts',
  'test/bullmq/faults/lock-lost-redis.test.ts',
  'test/bullmq/faults/lock-lost-postgres.test.ts',
  'test/bullmq/faults/postgres.test.ts',
  'test/bullmq/outbox/faults.test.ts',
  'test/bullmq/webhooks/fleet.test.ts',
  'test/bullmq/topologies/sentinel.test.ts',
  'packages/cli/test/commands.test.ts',
  'test/package.test.ts',
  'test/bullmq/webhooks/close.test.ts',
  'test/fuzz/hostile-server.test.ts',
  'test/ecosystem/runtimes.test.ts',
  'test/bullmq/webhooks/upgrade.test.ts',
  'test/bullmq/topologies/cluster.test.ts',
  'test/fault-tolerance.test.ts',
  'test/docs-site.test.ts',
  'test/consumer-types.test.ts',
  'test/docs-snippets.test.ts',
  'test/rate-gate.test.ts',
  'test/bullmq/store/redis-replication.test.ts',
  'test/bullmq/outbox/relay-kills.test.ts',
  'test/webhooks/relay.test.ts',
  'test/bullmq/crash.test.ts',
  'test/core/schema-fast-paths.test.ts',
  'test/core/send-schema-fast-path.test.ts',
  'test/bullmq/fleet/held-sends.test.ts',
  'test/bullmq/schedule.test.ts',
  // The files that run after the suite, four at a time (vitest.config.ts, ALONE): the longest first.
  'test/bullmq/fleet/fleet-postgres.test.ts',
  'test/bullmq/fleet/fleet-redis.test.ts',
  'test/bullmq/fleet/lanes-redis.test.ts',
  'test/bullmq/fleet/lanes-postgres.test.ts',
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = SLOWEST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return at === -1 ? SLOWEST.length : at;
    };
    // Vitest's order keeps each project's files together (groups, then projects): within each run
    // of one project the listed files move to the front, and the rest keep their order (a stable sort).
    const runs: TestSpecification[][] = [];
    for (const spec of await super.sort(files)) {
      const last = runs.at(-1);
      if (last?.[0]?.project === spec.project) last.push(spec);
      else runs.push([spec]);
    }
    return runs.flatMap((run) => run.sort((a, b) => rank(a) - rank(b)));
  }
}
