/**
 * The suite's scratch sweeper removes only what it can prove is a dead run of this user's, under
 * its own root: never a live run's folder (however old its top folder's mtime, whatever its pid
 * means here), never another user's folder or heartbeat, never through a link, never outside the
 * root, and nothing at all when the caller set TMPDIR. A property over mixes of such folders:
 * after a sweep, exactly the provably dead ones of this user are gone. Everything is made in a
 * folder of the test's own, never in /dev/shm itself.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HEARTBEAT,
  NEW_PREFIX,
  RUN_PREFIX,
  STALE_MS,
  type SweepContext,
  startScratch,
  sweepScratch,
} from '../../setup/scratch-dir.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const NS = 'pid:[4026531836]';
const uid = process.getuid?.() ?? 0;
const AS_ROOT = uid === 0;
/** Another user, as the machine's users are: 1000, their folder 0700. */
const THEIRS = 1000;
const top = mkdtempSync(join(tmpdir(), 'sweep-test-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));
const STALE = new Date(NOW - STALE_MS - 60_000);
const OLD = new Date(NOW - 3 * STALE_MS);
const RECENT = new Date(NOW - 1_000);

/** What one entry under the root is. */
interface Folder {
  /** Its name: a run's folder, one being made, or a name the suite never makes. */
  readonly kind: 'run' | 'new' | 'other';
  /** Its heartbeat: fresh, stale, none, or a link to a stale heartbeat elsewhere. */
  readonly beat: 'fresh' | 'stale' | 'none' | 'link';
  /** The folder's own mtime: recent or old (a live run's writes below it do not touch it). */
  readonly folderAge: 'recent' | 'old';
  /** The heartbeat's process: alive here, gone here, or in another PID namespace. */
  readonly owner: 'alive' | 'gone' | 'elsewhere';
  /** Another user's (as root only): the folder (0700), or only its heartbeat. */
  readonly foreign: 'no' | 'folder' | 'heartbeat';
  /** A link to a dead-looking run's folder outside the root, in the folder's place. */
  readonly link: boolean;
}

const folder: fc.Arbitrary<Folder> = fc.record({
  kind: fc.constantFrom('run', 'new', 'other'),
  beat: fc.constantFrom('fresh', 'stale', 'none', 'link'),
  folderAge: fc.constantFrom('recent', 'old'),
  owner: fc.constantFrom('alive', 'gone', 'elsewhere'),
  foreign: AS_ROOT ? fc.constantFrom('no', 'folder', 'heartbeat') : fc.constant('no'),
  link: fc.boolean(),
});

/** A dead run of this user's: a stale heartbeat, its process in another PID namespace. */
const DEAD: Folder = { kind: 'run', beat: 'stale', folderAge: 'old', owner: 'elsewhere', foreign: 'no', link: false };

/** Whether the sweep may remove it: ours, a real folder, and its run provably dead. */
function provablyDead(f: Folder): boolean {
  if (f.link || f.foreign === 'folder' || f.kind === 'other') return false;
  if (f.kind === 'new') return f.folderAge === 'old';
  return f.beat === 'stale' && f.foreign === 'no' && f.owner !== 'alive';
}

let made = 0;
/** A folder that looks like a dead run's, with a file that must outlive every sweep. */
function deadLooking(dir: string, mode = 0o755): string {
  mkdirSync(dir, { mode });
  writeFileSync(join(dir, 'keep'), 'not the sweeper’s');
  writeFileSync(join(dir, HEARTBEAT), JSON.stringify({ pid: 999_999, namespace: NS }));
  utimesSync(join(dir, HEARTBEAT), STALE, STALE);
  utimesSync(dir, OLD, OLD);
  return join(dir, 'keep');
}

/** Lays `folders` out under a new root; returns the context of a sweep there, and each folder's path. */
function layOut(folders: readonly Folder[]) {
  const root = join(top, `root-${made++}`);
  mkdirSync(root, { mode: 0o711 });
  const outside = deadLooking(join(top, `outside-${made}`));
  const paths = folders.map((f, i) => {
    const dir = join(root, `${{ run: RUN_PREFIX, new: NEW_PREFIX, other: 'tm-run-' }[f.kind]}${i}`);
    if (f.link) {
      symlinkSync(join(outside, '..'), dir);
      return dir;
    }
    mkdirSync(dir);
    writeFileSync(join(dir, 'work'), 'a run’s file');
    const beat = join(dir, HEARTBEAT);
    if (f.beat === 'link') symlinkSync(join(outside, '..', HEARTBEAT), beat);
    if (f.beat === 'fresh' || f.beat === 'stale') {
      const pid = f.owner === 'gone' ? 999_999 : 4242;
      const namespace = f.owner === 'elsewhere' ? 'pid:[4026532999]' : NS;
      writeFileSync(beat, JSON.stringify({ pid, namespace }));
      const at = f.beat === 'fresh' ? RECENT : STALE;
      utimesSync(beat, at, at);
      if (f.foreign === 'heartbeat') chownSync(beat, THEIRS, THEIRS);
    }
    const at = f.folderAge === 'recent' ? RECENT : OLD;
    lutimesSync(dir, at, at);
    if (f.foreign === 'folder') chownSync(dir, THEIRS, THEIRS);
    return dir;
  });
  const context: SweepContext = { root, uid, now: NOW, namespace: NS, alive: (pid) => pid === 4242 };
  return { context, paths, outside };
}

describe("the suite's scratch sweeper", () => {
  it('removes exactly the dead runs of this user under its root, and nothing else', () => {
    fc.assert(
      fc.property(fc.array(folder, { maxLength: 8 }), (folders) => {
        const { context, paths, outside } = layOut(folders);
        const removed = sweepScratch(context);
        folders.forEach((f, i) => {
          expect(existsSync(paths[i] as string), JSON.stringify(f)).toBe(!provablyDead(f));
        });
        expect(removed).toHaveLength(folders.filter(provablyDead).length);
        // A link is never followed: what it points at is untouched.
        expect(existsSync(outside)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it("keeps a live run's folder whose top folder is old and whose pid means nothing here", () => {
    const live: Folder = { ...DEAD, beat: 'fresh', folderAge: 'old' };
    const { context, paths } = layOut([live, { ...live, owner: 'gone' }]);
    expect(sweepScratch(context)).toEqual([]);
    expect(paths.map((path) => existsSync(join(path, 'work')))).toEqual([true, true]);
  });

  it('removes a dead run of this user, and a folder left half-made', () => {
    const dead: Folder = { ...DEAD, folderAge: 'recent' };
    const { context, paths } = layOut([dead, { ...dead, kind: 'new', beat: 'none', folderAge: 'old' }]);
    expect(sweepScratch(context).sort()).toEqual([`${NEW_PREFIX}1`, `${RUN_PREFIX}0`]);
    expect(paths.map((path) => existsSync(path))).toEqual([false, false]);
  });

  it('keeps a run folder whose heartbeat is missing, however old: it cannot be judged', () => {
    const { context, paths } = layOut([{ ...DEAD, beat: 'none' }]);
    expect(sweepScratch(context)).toEqual([]);
    expect(existsSync(paths[0] as string)).toBe(true);
  });

  it.runIf(AS_ROOT)("run as root, keeps another user's folder even when it looks dead", () => {
    const theirs: Folder = { ...DEAD, foreign: 'folder' };
    const { context, paths } = layOut([theirs, { ...theirs, foreign: 'heartbeat' }]);
    expect(sweepScratch(context)).toEqual([]);
    expect(paths.map((path) => existsSync(join(path, 'work')))).toEqual([true, true]);
  });

  it('touches nothing when the root is missing', () => {
    expect(sweepScratch({ root: join(top, 'missing'), uid, now: NOW, namespace: NS, alive: () => false })).toEqual([]);
  });
});

describe("the run's scratch folder", () => {
  const roomy = () => 64 * 1024 ** 3;
  /** A tmpfs of the test's own, with this user's root and one dead run of theirs in it. */
  function tmpfsWithDeadRun() {
    const tmpfs = join(top, `tmpfs-${made++}`);
    mkdirSync(tmpfs, { mode: 0o1777 });
    const root = join(tmpfs, `tenant-messaging-test-${uid}`);
    mkdirSync(root, { mode: 0o711 });
    const deadRun = join(root, `${RUN_PREFIX}dead`);
    deadLooking(deadRun);
    return { tmpfs, root, deadRun };
  }
  const options = (tmpfs: string, env: NodeJS.ProcessEnv = {}) => ({ tmpfs, env, room: roomy, uid, now: () => NOW });

  it('with TMPDIR set, makes nothing and sweeps nothing', () => {
    const { tmpfs, deadRun } = tmpfsWithDeadRun();
    const oldStyle = deadLooking(join(tmpfs, 'tm-run-999999-abcdef'));
    const env = { TMPDIR: '/somewhere/else' };
    expect(startScratch(options(tmpfs, env))).toBeUndefined();
    expect(env).toEqual({ TMPDIR: '/somewhere/else' });
    expect([existsSync(deadRun), existsSync(oldStyle)]).toEqual([true, true]);
  });

  it('without TMPDIR, sweeps the dead run and points TMPDIR at a new folder holding its own heartbeat', () => {
    const { tmpfs, root, deadRun } = tmpfsWithDeadRun();
    const env: NodeJS.ProcessEnv = {};
    const run = startScratch(options(tmpfs, env));
    expect(run).toBeDefined();
    if (run === undefined) return;
    expect(existsSync(deadRun)).toBe(false);
    expect(env['TMPDIR']).toBe(run.dir);
    expect(run.dir.startsWith(join(root, RUN_PREFIX))).toBe(true);
    // Open to the postgres user as /tmp is, the root only passable.
    expect(lstatSync(run.dir).mode & 0o7777).toBe(0o1777);
    expect(statSync(root).mode & 0o7777).toBe(0o711);
    const beat = lstatSync(join(run.dir, HEARTBEAT));
    expect([beat.isFile(), beat.uid]).toEqual([true, uid]);
    expect(JSON.parse(readFileSync(join(run.dir, HEARTBEAT), 'utf8'))).toMatchObject({ pid: process.pid });
    run.stop();
    expect(existsSync(run.dir)).toBe(false);
  });

  it('leaves alone what is beside its root: old-style tm-run folders and other users’ folders', () => {
    const { tmpfs } = tmpfsWithDeadRun();
    // The old sweeper's names: a pid gone here, an old mtime (a live run in another container).
    const keep = [
      deadLooking(join(tmpfs, 'tm-run-999999-abcdef')),
      deadLooking(join(tmpfs, 'tenant-messaging-test-x')),
    ];
    if (AS_ROOT) {
      const theirs = join(tmpfs, 'tm-run-999998-theirs');
      keep.push(deadLooking(theirs, 0o700));
      chownSync(theirs, THEIRS, THEIRS);
    }
    startScratch(options(tmpfs))?.stop();
    expect(keep.map((path) => existsSync(path))).toEqual(keep.map(() => true));
  });

  it('refuses a root that is a link, and follows it nowhere', () => {
    const tmpfs = join(top, `tmpfs-${made++}`);
    mkdirSync(tmpfs, { mode: 0o1777 });
    const elsewhere = join(top, `elsewhere-${made}`);
    mkdirSync(elsewhere, { mode: 0o711 });
    const keep = deadLooking(join(elsewhere, `${RUN_PREFIX}dead`));
    symlinkSync(elsewhere, join(tmpfs, `tenant-messaging-test-${uid}`));
    const env: NodeJS.ProcessEnv = {};
    expect(startScratch(options(tmpfs, env))).toBeUndefined();
    expect([existsSync(keep), env['TMPDIR']]).toEqual([true, undefined]);
  });

  it('refuses a root that others may write', () => {
    const { tmpfs, root, deadRun } = tmpfsWithDeadRun();
    // mkdir's mode passes through the umask: chmod sets it as written.
    chmodSync(root, 0o777);
    expect(startScratch(options(tmpfs))).toBeUndefined();
    expect(existsSync(deadRun)).toBe(true);
  });

  it.runIf(AS_ROOT)('refuses a root of the same name that another user made first', () => {
    const { tmpfs, root, deadRun } = tmpfsWithDeadRun();
    chownSync(root, THEIRS, THEIRS);
    chownSync(deadRun, THEIRS, THEIRS);
    chownSync(join(deadRun, HEARTBEAT), THEIRS, THEIRS);
    expect(startScratch({ ...options(tmpfs), uid: 0 })).toBeUndefined();
    expect(existsSync(join(deadRun, 'keep'))).toBe(true);
  });

  it('passes its own root of 0700 to 0711, for the postgres user', () => {
    const { tmpfs, root } = tmpfsWithDeadRun();
    chmodSync(root, 0o700);
    startScratch(options(tmpfs))?.stop();
    expect(statSync(root).mode & 0o7777).toBe(0o711);
  });

  it('without 2 GB free, sweeps the dead runs but makes no folder', () => {
    const { tmpfs, root, deadRun } = tmpfsWithDeadRun();
    const env: NodeJS.ProcessEnv = {};
    expect(startScratch({ ...options(tmpfs, env), room: () => 1024 ** 3 })).toBeUndefined();
    expect([existsSync(deadRun), env['TMPDIR'], readdirSync(root)]).toEqual([false, undefined, []]);
  });

  it('sweeps nothing on a filesystem that is no tmpfs', () => {
    const { tmpfs, deadRun } = tmpfsWithDeadRun();
    expect(startScratch({ ...options(tmpfs), room: () => undefined })).toBeUndefined();
    expect(existsSync(deadRun)).toBe(true);
  });
});
