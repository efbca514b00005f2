/**
 * Counts a process's datastore round trips on the client, for section 15 (bench/fleet-limit.mjs).
 * Used only by the bench: loaded with `--import` in each worker process it starts (the env
 * `BENCH_ROUND_TRIPS=ipc` then answers `{ roundTrips: 'reset' | 'read' }` over IPC with the counts
 * so far), and imported by the bench itself for its producer.
 *
 * - Redis (ioredis): a round trip is one request the client waits on: a command written alone
 *   (a script call, EVALSHA, is one), or a whole pipeline or MULTI (one write, one wait).
 *   `commands` counts every command written, each command of a pipeline too; the commands a
 *   script runs inside Redis are not sent, so not here (INFO commandstats counts those).
 * - PostgreSQL (pg): a round trip is one `Client#query` (Parse/Bind/Execute/Sync, one wait for
 *   ReadyForQuery; a pool's query is its client's). A query of several statements is still one.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** Clients the bench reads its figures with: not counted. */
const excluded = new WeakSet();
/** While the bench checks on a run through the queue itself (see `uncounted`). */
let paused = false;

/**
 * @typedef {{ redis: { roundTrips: number, commands: number, byName: Record<string, number> },
 *   postgres: { roundTrips: number, byName: Record<string, number> } }} RoundTrips
 */

/** @returns {RoundTrips} */
const fresh = () => ({ redis: { roundTrips: 0, commands: 0, byName: {} }, postgres: { roundTrips: 0, byName: {} } });
let counts = fresh();

/** @param {Record<string, number>} byName @param {string} name */
const bump = (byName, name) => {
  byName[name] = (byName[name] ?? 0) + 1;
};

/** @param {string} name */
function optional(name) {
  try {
    return require(name);
  } catch {
    return undefined;
  }
}

/**
 * What a query is, for the breakdown: the function it calls (BullMQ's and the SDK's SQL are
 * mostly `SELECT * FROM fn(...)`), else its first words.
 * @param {unknown} config
 */
function queryName(config) {
  const text = typeof config === 'string' ? config : String(/** @type {{ text?: string }} */ (config)?.text ?? '');
  const flat = text
    .replace(/--[^\n]*\n/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const call = /^SELECT\b[^(]*?\b([a-z_][a-z0-9_.]*)\s*\(/i.exec(flat);
  return call?.[1] && !/^(count|coalesce|exists|max|min|now|clock_timestamp)$/i.test(call[1])
    ? `${call[1]}()`
    : flat.slice(0, 48);
}

const ioredis = optional('ioredis');
if (ioredis) {
  const Redis = ioredis.Redis ?? ioredis.default ?? ioredis;
  // A script call is named by its script (BullMQ's and the SDK's are defined by name): its SHA1.
  /** @type {Map<string, string>} */
  const scripts = new Map();
  const defineCommand = Redis.prototype.defineCommand;
  Redis.prototype.defineCommand = function named(/** @type {string} */ name, /** @type {any} */ definition) {
    if (typeof definition?.lua === 'string') scripts.set(createHash('sha1').update(definition.lua).digest('hex'), name);
    return defineCommand.call(this, name, definition);
  };
  /** @param {any} command */
  const commandName = (command) => {
    const name = String(command?.name);
    if (name !== 'evalsha') return name;
    const sha = String(command.args?.[0] ?? '');
    return `script ${scripts.get(sha) ?? sha.slice(0, 8)}`;
  };
  const sendCommand = Redis.prototype.sendCommand;
  // A command sent before its connection was ready is queued, then sent again: counted once.
  const seen = new WeakSet();
  Redis.prototype.sendCommand = function counted(/** @type {any} */ command, /** @type {any} */ stream) {
    if (!paused && !excluded.has(this) && !seen.has(command)) {
      seen.add(command);
      counts.redis.commands++;
      // A pipeline's commands are written by its exec, counted there as one round trip.
      if (!stream?.isPipeline) {
        counts.redis.roundTrips++;
        bump(counts.redis.byName, commandName(command));
      }
    }
    return sendCommand.call(this, command, stream);
  };
  const Pipeline = require('ioredis/built/Pipeline').default;
  const exec = Pipeline.prototype.exec;
  Pipeline.prototype.exec = function counted(/** @type {unknown[]} */ ...args) {
    // A MULTI calls exec twice: first to queue its EXEC (a transaction still open), then to send.
    if (!paused && !excluded.has(this.redis) && this._transactions === 0 && this._queue?.length > 0) {
      counts.redis.roundTrips++;
      bump(counts.redis.byName, this._queue[0]?.name === 'multi' ? 'multi' : 'pipeline');
    }
    return exec.apply(this, args);
  };
}

const pg = optional('pg');
if (pg) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(/** @type {unknown} */ config, /** @type {unknown[]} */ ...rest) {
    if (!paused && !excluded.has(this)) {
      counts.postgres.roundTrips++;
      bump(counts.postgres.byName, queryName(config));
    }
    return query.call(this, config, ...rest);
  };
}

/** Leaves `client` (an ioredis client or a pg Client) out of the counts: the bench's own readings. */
export function exclude(/** @type {object} */ client) {
  excluded.add(client);
  return client;
}

/**
 * Runs `check` (the bench asking its queue how many sends ended) without counting what this
 * process sends meanwhile: the producer is otherwise idle by then, so only the check is left out.
 * @template T @param {() => Promise<T>} check @returns {Promise<T>}
 */
export async function uncounted(check) {
  paused = true;
  try {
    return await check();
  } finally {
    paused = false;
  }
}

/** This process's counts since the last reset, and a reset when asked. @param {boolean} [reset] */
export function roundTrips(reset = false) {
  const now = counts;
  if (reset) counts = fresh();
  return now;
}

if (process.env.BENCH_ROUND_TRIPS === 'ipc' && process.send) {
  process.on('message', (/** @type {any} */ message) => {
    if (message?.roundTrips === 'reset' || message?.roundTrips === 'read')
      process.send?.({ roundTrips: roundTrips(message.roundTrips === 'reset') });
  });
}

/**
 * In the bench: a worker's counts (`read`), or its counts and then a reset (`reset`).
 * @param {import('node:child_process').ChildProcess} child @param {'reset' | 'read'} what
 * @returns {Promise<RoundTrips>}
 */
export function askRoundTrips(child, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`worker ${child.pid} did not report its round trips within 5 s`));
    }, 5_000);
    const onMessage = (/** @type {any} */ message) => {
      if (!message?.roundTrips) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message.roundTrips);
    };
    child.on('message', onMessage);
    child.send({ roundTrips: what });
  });
}

/** The sum of several processes' counts. @param {RoundTrips[]} all @returns {RoundTrips} */
export function addRoundTrips(all) {
  const sum = fresh();
  for (const one of all) {
    sum.redis.roundTrips += one.redis.roundTrips;
    sum.redis.commands += one.redis.commands;
    sum.postgres.roundTrips += one.postgres.roundTrips;
    for (const [name, n] of Object.entries(one.redis.byName))
      sum.redis.byName[name] = (sum.redis.byName[name] ?? 0) + n;
    for (const [name, n] of Object.entries(one.postgres.byName))
      sum.postgres.byName[name] = (sum.postgres.byName[name] ?? 0) + n;
  }
  return sum;
}
