/**
 * How long the event loop was held, measured in the main thread's CPU time.
 *
 * Why not the wall-clock delay of a timer (`monitorEventLoopDelay`): on a busy machine (the suite's
 * own parallel files, a CPU hog, CI's neighbours) the operating system may take the core away from
 * this process for 50 ms or more while the SDK does nothing wrong, and a wall-clock stall test then
 * fails at random. What the SDK controls is how much CPU it burns without letting the loop turn:
 * a timer ticks every `resolutionMs`, and the main thread's CPU time between two ticks is the work
 * the loop did before it could run that timer. A synchronous scan of a 4 MiB body shows up in full;
 * a process that was merely descheduled shows up as nothing. (`process.threadCpuUsage` counts this
 * thread only, not the GC's or libuv's helper threads.)
 */
export interface LoopStalls {
  /** The most main-thread CPU spent between two ticks since the last `reset()`, in ms. */
  maxMs(): number;
  reset(): void;
  stop(): void;
}

/** The main thread's CPU time so far, in ms: what work costs, whoever else has the cores. */
export function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

export function watchLoopStalls(resolutionMs = 10): LoopStalls {
  let last = cpuMs();
  let max = 0;
  const timer = setInterval(() => {
    const now = cpuMs();
    max = Math.max(max, now - last);
    last = now;
  }, resolutionMs);
  return {
    maxMs: () => Math.max(max, cpuMs() - last),
    reset() {
      last = cpuMs();
      max = 0;
    },
    stop: () => clearInterval(timer),
  };
}
