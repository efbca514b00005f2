/**
 * Lists a server this file spawned with the run (test/setup/reap-servers.ts), which kills it at
 * the run's end if it still runs then: a test that timed out before its `finally` leaves no
 * server behind. Stopping it is still the file's job. Outside a test run (the bench uses these
 * helpers too), it does nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';

/** The variable that names the run's list (set by test/setup/reap-servers.ts). */
export const REAP_FILE = 'TM_REAP_FILE';

export function reapAtRunEnd(child: ChildProcess, command: string): void {
  const file = process.env[REAP_FILE];
  if (file && child.pid !== undefined) appendFileSync(file, `${child.pid} ${command}\n`);
}
