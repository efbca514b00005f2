/**
 * Lists a server this file spawned with the run (test/setup/reap-servers.ts), which kills it at
 * the run's end if it still runs then: a test that timed out before its `finally` leaves no
 * server behind. Stopping it is still the file's job. Outside a vitest run, it does nothing.
 */

import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';

export function reapAtRunEnd(child: ChildProcess, command: string): void {
  let file: string | undefined;
  try {
    file = inject('reapFile');
  } catch {
    return; // not in a vitest run
  }
  if (file && child.pid !== undefined) appendFileSync(file, `${child.pid} ${command}\n`);
}
