// Runs the script blocks of the documentation (test/helpers/docs-run.ts) in this one process,
// each in a worker thread of its own: its own globals, diagnostics channels and environment, as
// `node block.ts` would give it. Copied into the user's project and run there, so
// `tenant-messaging` is the packed package. A block passes when it exits by itself within the
// bound, threw nothing and wrote nothing to stderr. Its environment points the client at a
// sandbox of its own on loopback, new for the block (what one block sent is never what another
// finds), as `npx tenant-messaging-cli sandbox` and its two variables would.
//
// Each block.ts is stripped of its types here by Node's own stripper (what `node block.ts` does)
// into block.mjs, so the stripper is loaded once, not in every worker. A few blocks at a time,
// each bound counted from its block's own start, not spent waiting for the others to start.
//
//   node docs-runner.mjs <manifest.json> <results.json>
//   manifest: { boundMs, atOnce, blocks: [{ id, file }] } (file relative to the manifest)
//   results: [{ id, ms, code, error?, stdout, stderr, timedOut }]
import { readFileSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startSandbox } from 'tenant-messaging/sandbox';

const [manifestFile, resultsFile] = process.argv.slice(2);
const { boundMs, atOnce, blocks } = JSON.parse(readFileSync(manifestFile, 'utf8'));

async function run({ id, file: relative }) {
  const file = resolve(dirname(manifestFile), relative);
  const sandbox = await startSandbox();
  const acme = sandbox.tenants.acme;
  const env = { ...process.env, TENANT_MESSAGING_BASE_URL: acme.baseUrl, TENANT_MESSAGING_API_KEY: acme.keys.full };
  const started = performance.now();
  const script = file.replace(/\.ts$/, '.mjs');
  writeFileSync(script, stripTypeScriptTypes(readFileSync(file, 'utf8'), { sourceUrl: file }));
  const worker = new Worker(script, { env, stdout: true, stderr: true });
  const stdout = [];
  const stderr = [];
  worker.stdout.on('data', (chunk) => stdout.push(chunk));
  worker.stderr.on('data', (chunk) => stderr.push(chunk));
  let error;
  let timedOut = false;
  worker.on('error', (thrown) => {
    error = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  });
  const timer = setTimeout(() => {
    timedOut = true;
    void worker.terminate();
  }, boundMs);
  const code = await new Promise((resolve) => worker.on('exit', resolve));
  clearTimeout(timer);
  const ms = Math.round(performance.now() - started);
  await sandbox.close();
  const [out, err] = [stdout, stderr].map((chunks) => Buffer.concat(chunks).toString());
  return { id, ms, code, error, timedOut, stdout: out, stderr: err };
}

const results = [];
const queue = [...blocks];
await Promise.all(
  Array.from({ length: atOnce }, async () => {
    for (let block = queue.shift(); block; block = queue.shift()) results.push(await run(block));
  }),
);
writeFileSync(resultsFile, JSON.stringify(results));
