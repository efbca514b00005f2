/**
 * The run's TMPDIR: a folder of its own on the tmpfs at /dev/shm, when there is one with room and
 * the caller set no TMPDIR; removed when the run ends, or by a later run of the same user once it
 * can prove this one dead. Why: the suite makes and deletes tens of thousands of files, and on
 * ext4 the kernel checks each new inode against those deleted in the last minutes
 * (CONTRIBUTING.md has the cost).
 *
 * Every folder lives under this user's own root (`/dev/shm/tenant-messaging-test-<uid>`, 0711: the
 * `postgres` user may pass through, no one else may list or write it; refused, and the tmpfs not
 * used, when it is a link, another user's, or writable by others). A run's folder is born whole:
 * made as `new-<id>` with its heartbeat inside, then renamed `run-<id>`, so a `run-` folder without
 * a heartbeat is not a half-made one and is never judged. What a sweep removes (`sweepScratch`):
 * - `run-<id>`: a real folder of this user's whose heartbeat (a real file of this user's, touched
 *   every `BEAT_MS`) is older than `STALE_MS`, and whose process, when it ran in this PID
 *   namespace, is gone (a stopped run keeps its folder; another namespace's pid means nothing here);
 * - `new-<id>`: a real folder of this user's older than `STALE_MS` (made and renamed in one tick).
 * Nothing else: no other name, no other user's folder, no link followed, nothing outside the root.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statfsSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { freemem } from 'node:os';
import { basename, join } from 'node:path';

/** `statfs`'s type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** A run writes about 0.4 GB at its busiest; a tmpfs holds it in memory. */
const ROOM_BYTES = 2 * 1024 ** 3;
/** The heartbeat file of a run's folder: its pid and PID namespace, touched every `BEAT_MS`. */
export const HEARTBEAT = '.tm-run-heartbeat';
const BEAT_MS = 30_000;
/** A heartbeat this old belongs to a run that stopped beating: twenty beats missed. */
export const STALE_MS = 10 * 60_000;
/** A run's folder, and the name it has while its heartbeat is written. */
export const RUN_PREFIX = 'run-';
export const NEW_PREFIX = 'new-';

/** Who sweeps, and when: the parts of the machine a sweep reads, for its tests. */
export interface SweepContext {
  readonly root: string;
  readonly uid: number;
  readonly now: number;
  /** This process's PID namespace (`/proc/self/ns/pid`), or undefined where there is none. */
  readonly namespace: string | undefined;
  readonly alive: (pid: number) => boolean;
}

/** Where a run's folder goes, and what of the machine it reads: the defaults are this process's. */
export interface ScratchOptions {
  /**
   * The tmpfs that holds the root.
   * @default '/dev/shm'
   */
  readonly tmpfs?: string;
  /**
   * The environment whose TMPDIR is kept when set, and set to the run's folder otherwise.
   * @default process.env
   * @example { env: { ...process.env } }
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The bytes a run may use on `tmpfs`, or undefined when it is no tmpfs.
   * @default the tmpfs's free bytes (statfs) or the machine's free memory, whichever is less
   */
  readonly room?: (tmpfs: string) => number | undefined;
  /** @default process.getuid() */
  readonly uid?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** A run's folder, and how the run lets go of it. */
export interface ScratchRun {
  readonly dir: string;
  /** Stops the heartbeat and removes the folder. */
  readonly stop: () => void;
}

/** This user's root on the tmpfs. */
export function scratchRoot(uid = process.getuid?.() ?? 0, tmpfs = '/dev/shm'): string {
  return join(tmpfs, `tenant-messaging-test-${uid}`);
}

/** Points TMPDIR at a new folder on the tmpfs until the process exits; returns it, or undefined when TMPDIR is kept. */
export function useScratchDir(): string | undefined {
  const run = startScratch();
  if (run === undefined) return undefined;
  process.once('exit', run.stop);
  return run.dir;
}

/**
 * Sweeps this user's root of dead runs, then makes this run's folder there, beating, and sets
 * `env.TMPDIR` to it. Undefined, with nothing made or swept, when `env.TMPDIR` is set; undefined
 * after the sweep when there is no tmpfs with room or the root is not this user's alone.
 * @example const run = startScratch({ tmpfs: '/dev/shm' }); run?.stop();
 */
export function startScratch(options: ScratchOptions = {}): ScratchRun | undefined {
  const env = options.env ?? process.env;
  // The caller's TMPDIR is theirs: no folder made, none swept.
  if (env['TMPDIR']) return undefined;
  const tmpfs = options.tmpfs ?? '/dev/shm';
  const room = (options.room ?? tmpfsRoom)(tmpfs);
  if (room === undefined) return undefined;
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const root = ownRoot(scratchRoot(uid, tmpfs), uid);
  if (root === undefined) return undefined;
  const now = options.now ?? Date.now;
  // First: dead runs' folders would otherwise use up the room this run checks for.
  sweepScratch({ root, uid, now: now(), namespace: pidNamespace(), alive });
  if (room < ROOM_BYTES) return undefined;
  const dir = bornWhole(root);
  if (dir === undefined) return undefined;
  const heartbeat = join(dir, HEARTBEAT);
  const beat = setInterval(() => touch(heartbeat, new Date(now())), BEAT_MS);
  beat.unref();
  env['TMPDIR'] = dir;
  return {
    dir,
    stop: () => {
      clearInterval(beat);
      removeQuietly(dir);
    },
  };
}

/**
 * Removes the folders under `context.root` whose runs are provably dead (see the header), and
 * nothing else. Returns the names removed.
 * @example sweepScratch({ root, uid: 0, now: Date.now(), namespace: pidNamespace(), alive: () => false })
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

/** Whether `dir` is a folder of this user's whose run is dead. */
function dead(dir: string, { uid, now, namespace, alive }: SweepContext): boolean {
  const name = basename(dir);
  const folder = statOf(dir);
  if (!folder?.isDirectory() || folder.uid !== uid) return false;
  // A folder is `new-` only within the tick that makes it.
  if (name.startsWith(NEW_PREFIX)) return now - folder.mtimeMs > STALE_MS;
  if (!name.startsWith(RUN_PREFIX)) return false;
  const beat = statOf(join(dir, HEARTBEAT));
  if (!beat?.isFile() || beat.uid !== uid || now - beat.mtimeMs <= STALE_MS) return false;
  // A stale heartbeat: a run stopped (SIGSTOP) in this namespace still holds its folder.
  const owner = heartbeatOf(join(dir, HEARTBEAT));
  if (owner !== undefined && namespace !== undefined && owner.namespace === namespace && alive(owner.pid)) return false;
  return true;
}

/** A `run-` folder made with its heartbeat inside, open to the `postgres` user; undefined if it could not be. */
function bornWhole(root: string): string | undefined {
  let staging: string | undefined;
  try {
    staging = mkdtempSync(join(root, NEW_PREFIX));
    const body = JSON.stringify({ pid: process.pid, namespace: pidNamespace() ?? null });
    writeFileSync(join(staging, HEARTBEAT), body, { mode: 0o644, flag: 'wx' });
    // As /tmp is: the PostgreSQL clusters run as the `postgres` user when the suite runs as root.
    // The sticky bit keeps the heartbeat this user's alone to remove.
    chmodSync(staging, 0o1777);
    const dir = join(root, RUN_PREFIX + basename(staging).slice(NEW_PREFIX.length));
    // A run that died before this rename left a `new-` folder, which a sweep may remove.
    renameSync(staging, dir);
    return dir;
  } catch {
    if (staging !== undefined) removeQuietly(staging);
    return undefined;
  }
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
  // A umask of 077 made it 0700: the `postgres` user must pass through to its clusters.
  try {
    if ((stats.mode & 0o7777) !== 0o711) chmodSync(root, 0o711);
  } catch {
    return undefined;
  }
  return root;
}

/** The tmpfs's room for a run: a tmpfs is memory, the machine's as well as its own limit. */
function tmpfsRoom(tmpfs: string): number | undefined {
  try {
    const stats = statfsSync(tmpfs);
    return stats.type === TMPFS_MAGIC ? Math.min(stats.bavail * stats.bsize, freemem()) : undefined;
  } catch {
    return undefined;
  }
}

/** Touches the heartbeat; writes it again if it was removed, so that the folder stays judgeable. */
function touch(heartbeat: string, at: Date): void {
  try {
    utimesSync(heartbeat, at, at);
  } catch {
    try {
      writeFileSync(heartbeat, JSON.stringify({ pid: process.pid, namespace: pidNamespace() ?? null }), { flag: 'wx' });
    } catch {
      // The folder itself is gone, or the name is another user's: the run goes on without it.
    }
  }
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
