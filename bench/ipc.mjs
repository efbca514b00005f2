/**
 * A tiny request/answer protocol over the IPC channel of a forked child, so the bench can run
 * servers (and measured clients) in processes of their own and still ask them for figures.
 */
import { fork } from 'node:child_process';

/**
 * In a child: answers `{ id, cmd, arg }` messages with `{ id, result }` (or `{ id, error }`),
 * then announces `{ ready: payload }`.
 * @param {Record<string, (arg: any) => unknown>} handlers
 * @param {unknown} payload
 */
export function serveRpc(handlers, payload) {
  process.on('message', async (message) => {
    const { id, cmd, arg } = /** @type {{ id: number, cmd: string, arg: unknown }} */ (message);
    try {
      const handler = handlers[cmd];
      if (!handler) throw new Error(`unknown command ${cmd}`);
      process.send?.({ id, result: await handler(arg) });
    } catch (error) {
      process.send?.({ id, error: error instanceof Error ? error.stack : String(error) });
    }
  });
  process.send?.({ ready: payload });
}

/**
 * @typedef {object} Child
 * @property {any} ready what the child announced when it was ready
 * @property {(cmd: string, arg?: unknown) => Promise<any>} call
 * @property {() => Promise<void>} close ends the child (SIGTERM, then SIGKILL after 2 s)
 * @property {import('node:child_process').ChildProcess} process
 */

/**
 * Forks `file` and resolves once it announces itself ready (or rejects after `timeoutMs`).
 * @param {string | URL} file
 * @param {string[]} [args]
 * @param {{ execArgv?: string[], timeoutMs?: number, onMessage?: (message: any) => void }} [options]
 * @returns {Promise<Child>}
 */
export function forkChild(file, args = [], { execArgv = [], timeoutMs = 30_000, onMessage } = {}) {
  const child = fork(file, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const pending = new Map();
  let nextId = 1;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} was not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${code} before it was ready`));
      for (const { reject: fail } of pending.values()) fail(new Error(`${file} exited with ${code}`));
      pending.clear();
    });
    child.on('message', (/** @type {any} */ message) => {
      if (message && 'ready' in message) {
        clearTimeout(timer);
        resolve({
          ready: message.ready,
          process: child,
          call(cmd, arg) {
            const id = nextId++;
            return new Promise((ok, fail) => {
              pending.set(id, { resolve: ok, reject: fail });
              child.send({ id, cmd, arg });
            });
          },
          async close() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const killer = setTimeout(() => child.kill('SIGKILL'), 2_000);
            child.kill('SIGTERM');
            await exited;
            clearTimeout(killer);
          },
        });
        return;
      }
      if (message && typeof message.id === 'number' && pending.has(message.id)) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if ('error' in message) waiter?.reject(new Error(message.error));
        else waiter?.resolve(message.result);
        return;
      }
      onMessage?.(message);
    });
  });
}
