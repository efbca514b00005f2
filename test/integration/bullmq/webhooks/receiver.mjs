// The receiver of the webhook fleet test, a process of its own on 127.0.0.1: three endpoints,
// each verifying every request with the reference `standardwebhooks` package (a request that
// fails verification is answered 400 and reported).
//   /healthy  answers 500 to the first attempt of a third of the events (by webhook-id), 204 after;
//   /stall    never answers (the relay's timeout ends each attempt);
//   /gone     answers 410 Gone.
// It announces { port } over IPC, and reports each request as { path, id, status, at, body }.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const healthy = new Webhook(process.env.HEALTHY_SECRET);
const other = new Webhook(process.env.OTHER_SECRET);
const seen = new Set();

/** A third of the events, chosen by their id, fail their first attempt. */
const failsFirst = (id) => [...id].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 3 === 0;

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks).toString();
  const id = req.headers['webhook-id'];
  const path = req.url;
  const report = (status) => process.send({ path, id, status, at: Date.now(), body });
  try {
    (path === '/healthy' ? healthy : other).verify(body, req.headers);
  } catch (error) {
    report(400);
    return void res.writeHead(400).end(String(error));
  }
  if (path === '/stall') return report(0); // held until the relay gives up on it
  if (path === '/gone') {
    report(410);
    return void res.writeHead(410).end();
  }
  const first = !seen.has(id);
  seen.add(id);
  const status = first && failsFirst(id) ? 500 : 204;
  report(status);
  res.writeHead(status).end();
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
