/**
 * A loopback API server, in a process of its own, that holds its answers: for the heap of sends in
 * flight. While `holding` (after the `hold` command), every request is kept unanswered until
 * `release`, or at the latest `maxHoldMs` after it arrived (`node hold-server-child.mjs <maxHoldMs>`),
 * so no client is ever left hanging; otherwise it answers at once (the client's warm-up).
 */
import { createServer } from 'node:http';
import { MESSAGE_LOG_BODY } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

const [maxHoldMs = 10_000] = process.argv.slice(2).map(Number);
const headers = { 'content-type': 'application/json', 'content-length': String(MESSAGE_LOG_BODY.length) };
const counts = { connections: 0, requests: 0, held: 0 };
let holding = false;
/** @type {Set<() => void>} the answers held back */
const held = new Set();

const server = createServer((req, res) => {
  counts.requests++;
  const answer = () => {
    held.delete(answer);
    clearTimeout(timer);
    if (!res.destroyed) {
      res.writeHead(req.method === 'GET' ? 200 : 201, headers);
      res.end(MESSAGE_LOG_BODY);
    }
  };
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  req.resume();
  req.on('end', () => {
    if (!holding) return answer();
    counts.held++;
    held.add(answer);
    timer = setTimeout(answer, maxHoldMs);
  });
});
server.keepAliveTimeout = 60_000;
server.on('connection', () => {
  counts.connections++;
});

server.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  serveRpc(
    {
      hold: () => {
        holding = true;
        return true;
      },
      release: () => {
        holding = false;
        const answers = [...held];
        for (const answer of answers) answer();
        return answers.length;
      },
      stats: () => ({ ...counts, holdingNow: held.size }),
    },
    { url: `http://127.0.0.1:${address.port}` },
  );
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
