/**
 * A folder for the run's pristine PostgreSQL cluster (test/helpers/postgres.ts): the first file
 * that starts a cluster makes it there with initdb, and every cluster is a copy of it. Only the
 * folder is made here (a run that starts no cluster pays nothing), owned by the `postgres` user
 * when the suite runs as root, since initdb refuses root; it is removed when the run ends. The
 * files that run after the suite (another project) use the same folder: no second initdb.
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

/** The run's folder, shared by every project of the run (each runs this setup): one initdb a run. */
const shared = globalThis as { tmPgTemplate?: { dir: Promise<string>; users: number } };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.tmPgTemplate ??= { dir: makeFolder(), users: 0 };
  const template = shared.tmPgTemplate;
  template.users++;
  project.provide('pgTemplateDir', await template.dir);
  return async () => {
    if (--template.users > 0) return;
    delete shared.tmPgTemplate;
    await rm(await template.dir, { recursive: true, force: true });
  };
}

async function makeFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tm-pg-template-'));
  if (process.getuid?.() === 0) {
    const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const [uid, gid] = [id('-u'), id('-g')];
    if (uid && gid) await chown(dir, Number(uid), Number(gid));
  }
  return dir;
}
