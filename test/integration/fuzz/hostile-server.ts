/**
 * The hostile server of the fuzzer, run in a child process (`fork`) so that the client's event
 * loop is measured alone. A raw `node:net` server: it parses requests itself (so it can answer
 * before reading the body) and writes whatever bytes the case says (malformed HTTP included).
 * A second listener stands for "another origin": it must never see a connection.
 *
 * Node runs this file directly (type stripping), so it uses erasable TypeScript only and imports
 * nothing but node builtins at run time: the `Answer` type comes from the harness, and a type-only
 * import is erased.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Answer } from './harness.js';

/** What this server saw during one case (`CaseReport` in the harness, written to here). */
interface CaseReport {
  requests: number;
  finalStatuses: number[];
  otherConnections: number;
}

let answers: readonly Answer[] = [];
let report: CaseReport = { requests: 0, finalStatuses: [], otherConnections: 0 };
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();
let otherPort = 0;

function later(run: () => void, ms: number): void {
  const timer = setTimeout(() => {
    timers.delete(timer);
    run();
  }, ms);
  timers.add(timer);
}

function fill(text: string): string {
  return text.replaceAll('$OTHER', `http://127.0.0.1:${otherPort}`).replaceAll('$HUGE', 'h'.repeat(64 * 1024));
}

function bodyBytes(body: Answer['body']): Buffer {
  if (body.kind === 'text') return Buffer.from(fill(body.text));
  if (body.kind === 'bytes') return Buffer.from(body.base64, 'base64');
  if (body.kind === 'deep') {
    const { depth } = body;
    const inner = body.arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    return Buffer.from(body.wrapped ? `{"data":${inner}}` : inner);
  }
  const unit = '<p>Bad gateway &amp; friends</p>\n';
  const page = `<html><head><title>502 Bad Gateway</title></head><body>${unit.repeat(Math.ceil(body.size / unit.length))}</body></html>`;
  return Buffer.from(page.slice(0, Math.max(body.size, 80)));
}

/** The whole response as bytes, framed (or misframed) as the answer says. */
function responseBytes(answer: Answer): Buffer {
  const parts: Buffer[] = [];
  for (const code of answer.informational) parts.push(Buffer.from(`HTTP/1.1 ${code} Info\r\nX-Info: 1\r\n\r\n`));
  if (answer.status === null && answer.statusLine === null) return Buffer.concat(parts);
  const body = bodyBytes(answer.body);
  const line = answer.statusLine ?? `HTTP/1.1 ${String(answer.status).padStart(3, '0')} Whatever`;
  let head = `${line}\r\n`;
  for (const [name, value] of answer.headers) head += `${name}: ${fill(value)}\r\n`;
  let payload = body;
  if (answer.framing === 'length') head += `Content-Length: ${body.length}\r\n`;
  else if (answer.framing === 'shorter') head += `Content-Length: ${Math.floor(body.length / 2)}\r\n`;
  else if (answer.framing === 'longer') head += `Content-Length: ${body.length + 1 + (body.length % 97)}\r\n`;
  else if (answer.framing === 'chunked') {
    head += 'Transfer-Encoding: chunked\r\n';
    payload =
      body.length === 0
        ? Buffer.from('0\r\n\r\n')
        : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
  }
  if (answer.close) head += 'Connection: close\r\n';
  parts.push(Buffer.from(`${head}\r\n`), payload);
  return Buffer.concat(parts);
}

function write(socket: Socket, bytes: Buffer): void {
  if (!socket.destroyed && socket.writable) socket.write(bytes, () => undefined);
}

function answerRequest(socket: Socket): void {
  const index = report.requests++;
  const answer = answers[Math.min(index, answers.length - 1)];
  if (!answer) return void socket.destroy();
  // A junk status line replaces the status: record what the line says, when it says a number.
  const sent =
    answer.statusLine === null ? answer.status : Number(/^\S+ (\d+)/.exec(answer.statusLine)?.[1] ?? Number.NaN);
  if (sent !== null && !Number.isNaN(sent)) report.finalStatuses.push(sent);
  const bytes = responseBytes(answer);
  const { timing } = answer;
  const finish = () => {
    if (answer.close || answer.framing === 'none' || answer.framing === 'longer') socket.end();
  };
  if (timing.kind === 'now') {
    write(socket, bytes);
    finish();
  } else if (timing.kind === 'early') {
    write(socket, bytes);
    socket.end();
  } else if (timing.kind === 'stall') {
    write(socket, bytes.subarray(0, Math.floor(bytes.length * timing.at)));
  } else if (timing.kind === 'reset') {
    write(socket, bytes.subarray(0, Math.floor(bytes.length * timing.at)));
    later(() => (timing.rst ? socket.resetAndDestroy() : socket.destroy()), 1);
  } else {
    let offset = 0;
    const step = () => {
      if (socket.destroyed) return;
      write(socket, bytes.subarray(offset, offset + timing.chunk));
      offset += timing.chunk;
      if (offset < bytes.length) later(step, timing.delayMs);
      else finish();
    };
    step();
  }
}

/** Reads requests off a socket: head, then a Content-Length or chunked body (or none). */
function serve(socket: Socket): void {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => undefined);
  let buffer = Buffer.alloc(0);
  let state: { kind: 'head' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'ignore' } = {
    kind: 'head',
  };
  const done = () => {
    state = { kind: 'head' };
    answerRequest(socket);
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (state.kind === 'ignore') {
        buffer = Buffer.alloc(0);
        return;
      }
      if (state.kind === 'head') {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.subarray(0, end).toString('latin1').toLowerCase();
        buffer = buffer.subarray(end + 4);
        const length = /\r\ncontent-length: *(\d+)/.exec(head);
        const chunked = /\r\ntransfer-encoding: *chunked/.test(head);
        const answer = answers[Math.min(report.requests, answers.length - 1)];
        if (answer?.timing.kind === 'early' && (chunked || length)) {
          // Answers before reading the body, then stops reading: the upload is cut off.
          state = { kind: 'ignore' };
          answerRequest(socket);
          continue;
        }
        if (chunked) state = { kind: 'chunked' };
        else if (length && Number(length[1]) > 0) state = { kind: 'length', left: Number(length[1]) };
        else done();
      } else if (state.kind === 'length') {
        const take = Math.min(state.left, buffer.length);
        state.left -= take;
        buffer = buffer.subarray(take);
        if (state.left > 0) return;
        done();
      } else {
        const eol = buffer.indexOf('\r\n');
        if (eol === -1) return;
        const size = Number.parseInt(buffer.subarray(0, eol).toString('latin1'), 16);
        if (size === 0) {
          if (buffer.length < eol + 4) return;
          buffer = buffer.subarray(eol + 4);
          done();
        } else {
          if (buffer.length < eol + 2 + size + 2) return;
          buffer = buffer.subarray(eol + 2 + size + 2);
        }
      }
    }
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

const hostile = createServer(serve);
const other = createServer((socket) => {
  report.otherConnections++;
  socket.destroy();
});
const port = await listen(hostile);
otherPort = await listen(other);

type Message = { id: number; type: 'plan'; answers: Answer[] } | { id: number; type: 'report' };

process.on('message', (message: Message) => {
  if (message.type === 'plan') {
    for (const socket of sockets) socket.destroy();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    answers = message.answers;
    report = { requests: 0, finalStatuses: [], otherConnections: 0 };
    process.send?.({ id: message.id, ok: true });
  } else {
    process.send?.({ id: message.id, report });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true, port, otherPort });
