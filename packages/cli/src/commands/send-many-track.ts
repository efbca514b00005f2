import { type ProgressLine, progressLine } from '../output/progress.js';
import type { Context } from './messages.js';

/**
 * `--track`: the sent messages followed with `trackDeliveries` (one shared poller, a poll per
 * message per interval at most) until each reaches `until`, times out, or cannot be read, with a
 * second progress bar on a terminal. A stop signal ends it with the counts so far.
 *
 * @example
 * ```ts
 * const { reached, timeout, failed } = await track(client, sentIds, 'delivered', 600_000, out, signal)
 * ```
 */
export async function track(
  client: Context['client'],
  ids: readonly number[],
  until: 'delivered' | 'read',
  timeout: number,
  out: Context['out'],
  signal: AbortSignal,
): Promise<{ reached: number; timeout: number; failed: number }> {
  const counts = { reached: 0, timeout: 0, failed: 0 };
  const ended = new Set<number>();
  out.note(`Tracking ${ids.length} sent messages until ${until}...`);
  const bar: ProgressLine | undefined =
    out.format === 'human'
      ? progressLine(
          `tracking {bar} {value}/{total} | ${until} {reached} timeout {timeout} failed {failed} | ETA {eta_formatted}`,
          ids.length,
          counts,
        )
      : undefined;
  try {
    // The SDK's 2 s between polls, or a tenth of a short --track-timeout, so it is read in time.
    const interval = Math.min(2_000, Math.max(100, Math.round(timeout / 10)));
    for await (const update of client.trackDeliveries(ids, { until, timeout, interval, signal })) {
      if (ended.has(update.id)) continue;
      const reached = update.status === 'read' || (until === 'delivered' && update.status === 'delivered');
      if (reached) counts.reached++;
      else if (update.status === 'timeout') counts.timeout++;
      else if (update.status === 'failed') counts.failed++;
      else continue;
      ended.add(update.id);
      bar?.update(ended.size, counts);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    bar?.stop();
  }
  return counts;
}
