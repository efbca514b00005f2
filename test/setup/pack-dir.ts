/**
 * One folder per run for what the suite packs and installs once and several files share (the
 * three tarballs, the SDK installed alone: test/helpers/pack.ts). Only the folder is made here, so
 * a run of one file that packs nothing pays nothing: the first file that needs the packages packs
 * them, the others wait for it.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's folder for what is packed once (test/helpers/pack.ts). */
    packDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'tm-packed-'));
  project.provide('packDir', dir);
  // In watch mode, a rerun packs what changed since: the folder starts empty again.
  project.onTestsRerun(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
  });
  return () => rm(dir, { recursive: true, force: true });
}
