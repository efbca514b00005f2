/**
 * A loopback API server for section 13, in a process of its own: each POST is drained and answered
 * at once with a MessageLog of a new id (1, 2, 3...), as the API answers sends; anything else with
 * a 404. It counts the sends it answered.
 */
import { createServer } from 'node:http';
import { messageLogBody } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

let sends = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not found"}');
      return;
    }
    const body = messageLogBody(++sends);
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(body.length) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  serveRpc(
    {
      stats: () => ({ sends }),
      reset: () => {
        sends = 0;
        return true;
      },
    },
    { url: `http://127.0.0.1:${address.port}` },
  );
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
