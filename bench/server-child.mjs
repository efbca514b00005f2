/**
 * The minimal loopback API server, run in a process of its own (so it never shares the measured
 * client's event loop): GET answers a MessageLog envelope, POST drains the body (JSON or a 200 MB
 * multipart upload alike) and answers one. It counts accepted connections, requests and body bytes.
 */
import { createServer } from 'node:http';
import { MESSAGE_LOG_BODY } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

const counts = { connections: 0, requests: 0, bodyBytes: 0 };
const headers = { 'content-type': 'application/json', 'content-length': String(MESSAGE_LOG_BODY.length) };

const server = createServer((req, res) => {
  counts.requests++;
  if (req.method === 'GET') {
    res.writeHead(200, headers);
    res.end(MESSAGE_LOG_BODY);
    return;
  }
  req.on('data', (chunk) => {
    counts.bodyBytes += chunk.length;
  });
  req.on('end', () => {
    res.writeHead(201, headers);
    res.end(MESSAGE_LOG_BODY);
  });
});
// Idle sockets stay open across the alternating runs, so every socket the clients open is counted once.
server.keepAliveTimeout = 60_000;
server.on('connection', () => {
  counts.connections++;
});

server.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  serveRpc(
    {
      stats: () => ({ ...counts }),
      close: () => {
        server.closeAllConnections();
        server.close();
        setImmediate(() => process.exit(0));
        return true;
      },
    },
    { url: `http://127.0.0.1:${address.port}` },
  );
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
