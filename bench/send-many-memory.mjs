/**
 * Section 13, "send-many memory against file size": the built bin (packages/cli/dist/main.js, as users run
 * it) sends CSV files of growing size to a loopback server, and its peak RSS is read from the
 * kernel as it exits (peak-rss.mjs: `process.resourceUsage().maxRSS`, the high-water mark of its
 * resident memory, pass through the file, sends and written-back rows included). The server runs
 * in a process of its own and answers each send at once with a log of a new id
 * (send-server-child.mjs). Two kinds of file:
 *
 * - `mixed`: every `sentEvery`-th row a text message, sent over HTTP; every other row has an empty
 *   text, refused by the bin's own checks (no request), and written with its reason to the failed
 *   rows' file. A million rows then take about 20 s, not the 2 minutes of a million requests, and
 *   every row still goes through the reading, the checks, the ordered queue and a written file.
 * - `sent`: every row sent over HTTP.
 *
 * Figures: each run's peak RSS (MB), rows, what was sent and refused, and time; the peak of the
 * largest mixed file (the target: a 1,000,000-row file below 150 MB), and how much it grew from
 * the smallest one (flat: the file is streamed, whatever its size).
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY, SENDER_PHONE, TO_PHONE } from './fixtures.mjs';
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';

const BIN = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const PEAK_RSS = fileURLToPath(new URL('./peak-rss.mjs', import.meta.url));

/**
 * @typedef {{ rows: number, sentEvery: number }} MemoryRun
 * @param {{ concurrency: number, deadlineMs: number, runs: MemoryRun[] }} config
 */
export async function benchSendManyMemory(config) {
  const server = await forkChild(new URL('./send-server-child.mjs', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'tm-bench-send-many-'));
  try {
    const runs = [];
    for (const run of config.runs) {
      const file = join(dir, `rows-${run.rows}-every-${run.sentEvery}.csv`);
      await writeRows(file, run);
      const fileMB = round((await stat(file)).size / 1024 / 1024, 1);
      await server.call('reset');
      const measured = await measure(file, server.ready.url, config, dir);
      const { sends } = await server.call('stats');
      const expectedSent = Math.ceil(run.rows / run.sentEvery);
      if (measured.summary.sent !== expectedSent || sends !== expectedSent) {
        throw new Error(
          `send-many sent ${measured.summary.sent} (server: ${sends}) of ${expectedSent} rows of ${file}; stderr: ${measured.stderrTail}`,
        );
      }
      runs.push({
        kind: run.sentEvery === 1 ? 'sent' : 'mixed',
        rows: run.rows,
        sentEvery: run.sentEvery,
        fileMB,
        sent: measured.summary.sent,
        refused: measured.summary.failed,
        peakRssMB: measured.peakRssMB,
        seconds: measured.seconds,
        rowsPerSecond: Math.round(run.rows / measured.seconds),
      });
      await rm(file.replace(/\.csv$/, '.failed.csv'), { force: true });
      await rm(file, { force: true });
    }
    const mixed = runs.filter((run) => run.kind === 'mixed').sort((a, b) => a.rows - b.rows);
    const smallest = mixed[0];
    const largest = mixed.at(-1);
    return {
      concurrency: config.concurrency,
      runs,
      largestRows: largest?.rows ?? 0,
      peakRssMBLargest: largest?.peakRssMB ?? null,
      growthMBSmallestToLargest: smallest && largest ? round(largest.peakRssMB - smallest.peakRssMB, 1) : null,
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A CSV of `rows` rows: every `sentEvery`-th one a text, the others with an empty text.
 * @param {string} path
 * @param {MemoryRun} run
 */
async function writeRows(path, { rows, sentEvery }) {
  const out = createWriteStream(path);
  let text = 'to,text\n';
  for (let i = 0; i < rows; i++) {
    text +=
      i % sentEvery === 0 ? `${TO_PHONE},"Row ${i}: your order has shipped, it arrives Friday"\n` : `${TO_PHONE},\n`;
    if (text.length > 1 << 20) {
      if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
      text = '';
    }
  }
  await new Promise((resolve, reject) =>
    out.end(text, (/** @type {Error | undefined} */ error) => (error ? reject(error) : resolve(undefined))),
  );
}

/**
 * Runs the bin on `file` to its end and reads its peak RSS.
 * @param {string} file
 * @param {string} url
 * @param {{ concurrency: number, deadlineMs: number }} config
 * @param {string} dir
 */
async function measure(file, url, { concurrency, deadlineMs }, dir) {
  const peakFile = join(dir, 'peak-rss');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      PEAK_RSS,
      BIN,
      'send-many',
      '--file',
      file,
      '--from',
      SENDER_PHONE,
      '--concurrency',
      String(concurrency),
      '--json',
    ],
    {
      env: {
        ...process.env,
        TENANT_MESSAGING_BASE_URL: url,
        TENANT_MESSAGING_API_KEY: API_KEY,
        TM_BENCH_PEAK_RSS: peakFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  // A note per refused row goes to stderr: only its end is kept, for an error message.
  let stderrTail = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-2_000);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  const code = await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const seconds = round((performance.now() - started) / 1000, 2);
  if (code !== 0 && code !== 1) throw new Error(`send-many exited ${code} on ${file}: ${stderrTail}`);
  const peakRssMB = round(Number(await readFile(peakFile, 'utf8')) / 1024, 1);
  return { summary: JSON.parse(stdout), peakRssMB, seconds, stderrTail };
}

// `node bench/send-many-memory.mjs [--quick|--smoke]`: this section alone, against the build.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { FULL, QUICK, SMOKE } = await import('./config.mjs');
  const { checkTargets, sendManyMemoryRows, table } = await import('./report.mjs');
  const mode = process.argv.includes('--smoke') ? SMOKE : process.argv.includes('--quick') ? QUICK : FULL;
  const sendManyMemory = await benchSendManyMemory(mode.sendManyMemory);
  const check = checkTargets({ sendManyMemory }).find((c) => c.name.startsWith('send-many'));
  const verdict = () => (check ? `${check.target} ${check.pass ? 'PASS' : 'MISS'}` : '');
  process.stdout.write(
    `${table([['#', 'measure', 'bin', 'runs', 'growth', 'target'], ...sendManyMemoryRows(sendManyMemory, verdict)])}\n`,
  );
}
