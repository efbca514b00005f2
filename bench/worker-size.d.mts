/** The types of worker-size.mjs, for the test that holds the Worker to its bound (worker-bundle.test.ts). */
import type { BuildResult } from 'esbuild';

/** The Worker: one message sent per request, nothing else of the SDK asked for. */
export declare const WORKER: string;
/** A project in `work` holding the built Workers entry, its runtime dependencies and the Worker. */
export declare function minimalWorkerProject(work: string): Promise<string>;
/** The project's Worker bundled as wrangler bundles it for a deploy, with esbuild's metafile. */
export declare function bundleLikeWrangler(
  project: string,
  nodePaths?: string[],
): Promise<BuildResult<{ metafile: true; write: false }>>;
/** The project's Worker as `wrangler deploy --dry-run --minify` writes it. */
export declare function wranglerBundle(project: string): Promise<Buffer>;
/** The minimal Worker's bundle, by esbuild and by wrangler: bytes and gzipped bytes. */
export declare function workerBundleSizes(): Promise<{
  esbuild: { bytes: number; gzipBytes: number };
  wrangler: { bytes: number; gzipBytes: number };
}>;
