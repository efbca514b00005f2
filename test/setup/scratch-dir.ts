/**
 * The run's TMPDIR: a folder of its own on the tmpfs at /dev/shm, when there is one with room and
 * the caller set no TMPDIR; removed when the run ends, or by a later run of the same user once it
 * can prove this one dead. Why: the suite makes and deletes tens of thousands of files, and on
 * ext4 the kernel checks each new inode against those deleted in the last minutes
 * (CONTRIBUTING.md has the cost).
 *
 * What a sweep may remove (`sweepScratch`): only folders under this user's own root
 * (`/dev/shm/tenant-messaging-test-<uid>`, 0711, refused when another user owns it or it is a
 * link), each owned by this user and holding this user's heartbeat file, whose run is dead: its
 * heartbeat is older than `STALE_MS` and its process, when it ran in this PID namespace, is gone.
 * A folder with no heartbeat is removed only when it is older than `STALE_MS` (a run writes its
 * heartbeat right after making the folder). Nothing outside the root, and no other user's
 * folder, is ever touched: a run in another container has a root of the same name only when it
 * shares this user and this tmpfs, and then its heartbeat keeps it.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';

const TMPFS = '/dev/shm';
/** `statfs`'s type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** A run writes about 0.4 GB at its busiest; a tmpfs holds it in memory. */
const ROOM_BYTES = 2 * 1024 ** 3;
/** The heartbeat file of a run's folder: its pid and PID namespace, touched every `BEAT_MS`. */
export const HEARTBEAT = '.tm-run-heartbeat';
const BEAT_MS = 30_000;
/** A heartbeat this old belongs to a run that stopped beating: twenty beats missed. */
export const STALE_MS = 10 * 60_000;

/** Who sweeps, and when: the parts of the machine a sweep reads, for its tests. */
export interface SweepContext {
  readonly root: string;
  readonly uid: number;
  readonly now: number;
  /** This process's PID namespace (`/proc/self/ns/pid`), or undefined where there is none. */
  readonly namespace: string | undefined;
  readonly alive: (pid: number) => boolean;
}

/** This user's root on the tmpfs. */
export function scratchRoot(uid = process.getuid?.() ?? 0): string {
  return join(TMPFS, `tenant-messaging-test-${uid}`);
}

/** Points TMPDIR at a new folder on the tmpfs; returns it, or undefined when TMPDIR is kept. */
export function useScratchDir(): string | undefined {
  // The caller's TMPDIR is theirs: no folder made, none swept.
  if (process.env['TMPDIR']) return undefined;
  let room: number;
  try {
    const stats = statfsSync(TMPFS);
    if (stats.type !== TMPFS_MAGIC) return undefined;
    room = stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
  const uid = process.getuid?.() ?? 0;
  const root = ownRoot(scratchRoot(uid), uid);
  if (root === undefined) return undefined;
  // First: dead runs' folders would otherwise use up the room this run checks for.
  sweepScratch({ root, uid, now: Date.now(), namespace: pidNamespace(), alive });
  // A tmpfs is memory: the machine's as well as the tmpfs's own limit.
  if (Math.min(room, freemem()) < ROOM_BYTES) return undefined;
  const dir = mkdtempSync(join(root, 'run-'));
  const heartbeat = join(dir, HEARTBEAT);
  writeFileSync(heartbeat, JSON.stringify({ pid: process.pid, namespace: pidNamespace() ?? null }), { mode: 0o644 });
  // As /tmp is: the PostgreSQL clusters run as the `postgres` user when the suite runs as root.
  chmodSync(dir, 0o1777);
  const beat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(heartbeat, now, now);
    } catch {
      // Removed under us: the run goes on without a scratch folder's keep-alive.
    }
  }, BEAT_MS);
  beat.unref();
  process.env['TMPDIR'] = dir;
  process.once('exit', () => {
    clearInterval(beat);
    removeQuietly(dir);
  });
  return dir;
}

/**
 * Removes the folders under `context.root` whose runs are provably dead (see the header), and
 * nothing else. Returns the names removed.
 */
export function sweepScratch(context: SweepContext): string[] {
  let names: string[];
  try {
    names = readdirSync(context.root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(context.root, name);
    if (!dead(dir, context)) continue;
    removeQuietly(dir);
    removed.push(name);
  }
  return removed;
}

/** Whether `dir` is a run folder of this user whose run is dead. */
function dead(dir: string, { uid, now, namespace, alive }: SweepContext): boolean {
  const folder = statOf(dir);
  if (!folder?.isDirectory() || folder.uid !== uid) return false;
  const beat = statOf(join(dir, HEARTBEAT));
  if (beat === undefined) return now - folder.mtimeMs > STALE_MS;
  if (!beat.isFile() || beat.uid !== uid || now - beat.mtimeMs <= STALE_MS) return false;
  // A stale heartbeat: a run stopped (SIGSTOP) in this namespace still holds its folder.
  const owner = heartbeatOf(join(dir, HEARTBEAT));
  if (owner !== undefined && namespace !== undefined && owner.namespace === namespace && alive(owner.pid)) return false;
  return true;
}

/** The root, made if missing; undefined when it is not a folder of this user's that only they may write. */
function ownRoot(root: string, uid: number): string | undefined {
  try {
    mkdirSync(root, { mode: 0o711 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const stats = statOf(root);
  if (!stats?.isDirectory() || stats.uid !== uid || (stats.mode & 0o022) !== 0) return undefined;
  return root;
}

function statOf(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function heartbeatOf(path: string): { pid: number; namespace: string | null } | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; namespace?: unknown };
    if (typeof value.pid !== 'number') return undefined;
    return { pid: value.pid, namespace: typeof value.namespace === 'string' ? value.namespace : null };
  } catch {
    return undefined;
  }
}

/** This process's PID namespace, as Linux names it (`pid:[4026531836]`). */
export function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** Removes `dir` (links inside it are removed, never followed), leaving what this user may not remove. */
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
