/**
 * A folder for the run's pristine PostgreSQL cluster (test/helpers/postgres.ts): the first file
 * that starts a cluster makes it there with initdb, and every cluster is a copy of it. Only the
 * folder is made here (a run that starts no cluster pays nothing), owned by the `postgres` user
 * when the suite runs as root, since initdb refuses root; it is removed when the run ends.
 */
import { spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's folder for its pristine PostgreSQL cluster (test/helpers/postgres.ts). */
    pgTemplateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'tm-pg-template-'));
  if (process.getuid?.() === 0) {
    const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const [uid, gid] = [id('-u'), id('-g')];
    if (uid && gid) await chown(dir, Number(uid), Number(gid));
  }
  project.provide('pgTemplateDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
