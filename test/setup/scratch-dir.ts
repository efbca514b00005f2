/**
 * The run's TMPDIR: a folder of its own on the tmpfs at /dev/shm, when there is one with room and
 * the caller set no TMPDIR; removed when the run ends, or by the next run when this one was killed.
 * Why: the suite makes and deletes tens of thousands of files, and on ext4 the kernel checks each
 * new inode against those deleted in the last minutes (CONTRIBUTING.md has the cost).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

const TMPFS = '/dev/shm';
/** `statfs`'s type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** A run writes about 0.4 GB at its busiest; a tmpfs holds it in memory. */
const ROOM_BYTES = 2 * 1024 ** 3;
const PREFIX = 'tm-run-';

/** Points TMPDIR at a new folder on the tmpfs; returns it, or undefined when TMPDIR is kept. */
export function useScratchDir(): string | undefined {
  if (process.env['TMPDIR']) return undefined;
  let room: number;
  try {
    const stats = statfsSync(TMPFS);
    if (stats.type !== TMPFS_MAGIC) return undefined;
    room = stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
  if (room < ROOM_BYTES) return undefined;
  removeAbandoned();
  const dir = mkdtempSync(join(TMPFS, `${PREFIX}${process.pid}-`));
  // As /tmp is: the PostgreSQL clusters run as the `postgres` user when the suite runs as root.
  chmodSync(dir, 0o1777);
  process.env['TMPDIR'] = dir;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Removes the folders of runs whose process is gone (a run killed before its exit). */
function removeAbandoned(): void {
  for (const name of readdirSync(TMPFS)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!(pid > 0) || alive(pid)) continue;
    try {
      rmSync(join(TMPFS, name), { recursive: true, force: true });
    } catch {
      // Another user's folder: theirs to remove.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
