import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a lag writes to hold a stopped replica back: past every socket buffer on loopback. */
const LAG_BYTES = 48 * 1024 * 1024;
const LAG_STEP = 4 * 1024 * 1024;

/**
 * Fills the replication stream of the primary on `port` past what the kernel's socket buffers hold
 * (tcp_rmem's 32 MB and tcp_wmem's 4 MB at most), so that a replica stopped before it lags for
 * real: the writes that follow stay in the primary's memory, and a primary killed takes them with
 * it. The data is made by the primary itself (a script's write is replicated as its effect), on
 * `key`, in 4 MB steps: one step of 48 MB held the primary past the sentinels' down-after (1 s).
 */
export async function fillReplicationStream(port: number, key: string): Promise<void> {
  for (let made = 0; made < LAG_BYTES; made += LAG_STEP) {
    await run(
      'redis-cli',
      [
        '-p',
        String(port),
        'EVAL',
        "redis.call('APPEND', KEYS[1], string.rep('x', tonumber(ARGV[1])))",
        '1',
        key,
        String(LAG_STEP),
      ],
      { timeout: 10_000 },
    );
  }
}
