/**
 * The run's TMPDIR: a folder of its own on the tmpfs at /dev/shm, when there is one with room and
 * the caller set no TMPDIR; removed when the run ends, or by a later run when this one was killed.
 * Why: the suite makes and deletes tens of thousands of files, and on ext4 the kernel checks each
 * new inode against those deleted in the last minutes (CONTRIBUTING.md has the cost).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';

const TMPFS = '/dev/shm';
/** `statfs`'s type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** A run writes about 0.4 GB at its busiest; a tmpfs holds it in memory. */
const ROOM_BYTES = 2 * 1024 ** 3;
const PREFIX = 'tm-run-';
/** A run's folder changes every few seconds while it runs. */
const ABANDONED_AFTER_MS = 10 * 60_000;

/** Points TMPDIR at a new folder on the tmpfs; returns it, or undefined when TMPDIR is kept. */
export function useScratchDir(): string | undefined {
  let room: number;
  try {
    const stats = statfsSync(TMPFS);
    if (stats.type !== TMPFS_MAGIC) return undefined;
    room = stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
  // First: abandoned folders would otherwise use up the room this run checks for.
  removeAbandoned();
  // A tmpfs is memory: the machine's as well as the tmpfs's own limit.
  if (process.env['TMPDIR'] || Math.min(room, freemem()) < ROOM_BYTES) return undefined;
  const dir = mkdtempSync(join(TMPFS, `${PREFIX}${process.pid}-`));
  // As /tmp is: the PostgreSQL clusters run as the `postgres` user when the suite runs as root.
  chmodSync(dir, 0o1777);
  process.env['TMPDIR'] = dir;
  process.once('exit', () => removeQuietly(dir));
  return dir;
}

/**
 * Removes the folders of runs whose process is gone (a run killed before its exit) and that have
 * not changed for a while: a run in another container that shares /dev/shm has a PID of its own.
 */
function removeAbandoned(): void {
  let names: string[];
  try {
    names = readdirSync(TMPFS);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!(pid > 0) || alive(pid)) continue;
    const dir = join(TMPFS, name);
    try {
      if (Date.now() - statSync(dir).mtimeMs > ABANDONED_AFTER_MS) removeQuietly(dir);
    } catch {
      // Gone already.
    }
  }
}

/** Removes `dir`, leaving what this user may not remove (another user's files) to its owner. */
function removeQuietly(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Not ours to remove.
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
