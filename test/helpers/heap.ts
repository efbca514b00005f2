import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's gc, exposed for measures of what is retained: a process's heapUsed otherwise also counts
// garbage not yet collected, its own and, where files share a worker (vitest.config.ts), other files'.
setFlagsFromString('--expose_gc');
const collect = runInNewContext('gc') as () => void;

/** The heap in use once garbage is collected: what is retained. */
export function retainedHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}
