/**
 * The run's last word on the servers its files started: each helper that spawns one (Redis, its
 * Sentinel and Cluster sets) lists its PID here (test/helpers/reap.ts), and once every file has
 * ended, any still running is killed. A file stops its servers itself; this is for the file whose
 * test timed out before its `finally`, whose servers outlived the run on a shared machine (one
 * Redis and three sentinels, seen after a CI run). Only a process that is still the server
 * listed is killed: `/proc/<pid>/cmdline` must name it, so a PID reused meanwhile is left alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAP_FILE } from '../helpers/reap.ts';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'tm-reap-'));
  const file = join(dir, 'pids');
  writeFileSync(file, '');
  // An environment variable, not vitest's provide(): the workers inherit it, and the helpers read
  // it without importing vitest (the bench runs them under plain node).
  process.env[REAP_FILE] = file;
  return () => {
    const listed = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    for (const line of new Set(listed)) {
      const [pid, command] = [Number(line.split(' ')[0]), line.slice(line.indexOf(' ') + 1)];
      let running = '';
      try {
        running = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
      } catch {
        continue; // ended
      }
      if (!running.startsWith(command)) continue; // redis-server rewrites its title: 'redis-server 127.0.0.1:port'
      try {
        process.kill(pid, 'SIGCONT'); // a paused server must be able to die
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
