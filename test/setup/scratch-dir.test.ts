/**
 * The suite's scratch sweeper removes only what it can prove is a dead run of this user's, under
 * its own root: never a live run's folder (however old its top folder's mtime, whatever its pid
 * means here), never another user's folder, never through a link, never outside the root. A
 * property over mixes of such folders: after a sweep, exactly the provably dead ones of this user
 * are gone. Made in a folder of the test's own, never in /dev/shm itself.
 */
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HEARTBEAT, STALE_MS, type SweepContext, sweepScratch } from './scratch-dir.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const NS = 'pid:[4026531836]';
const uid = process.getuid?.() ?? 0;
const AS_ROOT = uid === 0;
const top = mkdtempSync(join(tmpdir(), 'sweep-test-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

/** What one folder under the root is. */
interface Folder {
  /** Its heartbeat: fresh, stale, or none. */
  readonly beat: 'fresh' | 'stale' | 'none';
  /** The folder's own mtime: recent or old (a live run's writes below it do not touch it). */
  readonly folderAge: 'recent' | 'old';
  /** The heartbeat's process: alive here, gone here, or in another PID namespace. */
  readonly owner: 'alive' | 'gone' | 'elsewhere';
  /** Another user's (as root only): uid 1000, mode 0700. */
  readonly foreign: boolean;
  /** A link to a folder outside the root, in the folder's place. */
  readonly link: boolean;
}

const folder: fc.Arbitrary<Folder> = fc.record({
  beat: fc.constantFrom('fresh', 'stale', 'none'),
  folderAge: fc.constantFrom('recent', 'old'),
  owner: fc.constantFrom('alive', 'gone', 'elsewhere'),
  foreign: AS_ROOT ? fc.boolean() : fc.constant(false),
  link: fc.boolean(),
});

/** Whether the sweep may remove it: ours, a real folder, and its run provably dead. */
function provablyDead(f: Folder): boolean {
  if (f.foreign || f.link) return false;
  if (f.beat === 'none') return f.folderAge === 'old';
  return f.beat === 'stale' && f.owner !== 'alive';
}

let made = 0;
/** Lays `folders` out under a new root; returns the context of a sweep there, and each folder's path. */
function layOut(folders: readonly Folder[]) {
  const root = join(top, `root-${made++}`);
  mkdirSync(root, { mode: 0o711 });
  const outside = join(top, `outside-${made}`);
  mkdirSync(outside);
  writeFileSync(join(outside, 'keep'), 'not the sweeper’s');
  const paths = folders.map((f, i) => {
    const dir = join(root, `run-${i}`);
    if (f.link) {
      symlinkSync(outside, dir);
      return dir;
    }
    mkdirSync(dir);
    writeFileSync(join(dir, 'work'), 'a run’s file');
    if (f.beat !== 'none') {
      const pid = f.owner === 'gone' ? 999_999 : 4242;
      const namespace = f.owner === 'elsewhere' ? 'pid:[4026532999]' : NS;
      const beat = join(dir, HEARTBEAT);
      writeFileSync(beat, JSON.stringify({ pid, namespace }));
      const at = new Date(f.beat === 'fresh' ? NOW - 1_000 : NOW - STALE_MS - 60_000);
      utimesSync(beat, at, at);
    }
    const at = new Date(f.folderAge === 'recent' ? NOW - 1_000 : NOW - 3 * STALE_MS);
    utimesSync(dir, at, at);
    if (f.foreign) chownSync(dir, 1000, 1000);
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
        sweepScratch(context);
        folders.forEach((f, i) => {
          expect(existsSync(paths[i] as string), JSON.stringify(f)).toBe(!provablyDead(f));
        });
        // A link is never followed: what it points at is untouched.
        expect(existsSync(join(outside, 'keep'))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps a live run's folder whose top folder is old and whose pid means nothing here", () => {
    const live: Folder = { beat: 'fresh', folderAge: 'old', owner: 'elsewhere', foreign: false, link: false };
    const { context, paths } = layOut([live]);
    expect(sweepScratch(context)).toEqual([]);
    expect(existsSync(paths[0] as string)).toBe(true);
  });

  it.runIf(AS_ROOT)("run as root, keeps another user's folder even when it looks dead", () => {
    const theirs: Folder = { beat: 'stale', folderAge: 'old', owner: 'gone', foreign: true, link: false };
    const { context, paths } = layOut([theirs]);
    expect(sweepScratch(context)).toEqual([]);
    expect(existsSync(join(paths[0] as string, 'work'))).toBe(true);
  });

  it('touches nothing when the root is missing', () => {
    expect(sweepScratch({ root: join(top, 'missing'), uid, now: NOW, namespace: NS, alive: () => false })).toEqual([]);
  });
});
