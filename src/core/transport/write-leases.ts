/**
 * Read buffers lent to a socket until the socket has written them, so an upload can reuse them.
 *
 * Why: a file upload reads the file into buffers that live outside the JS heap. A fresh buffer per
 * read is freed only by a later garbage collection, and V8 paces those by the JS heap, not by
 * these bytes: a big upload piled up written, dead buffers (README, Performance).
 * Reusing a buffer is safe only once nothing will read it again, and the one moment that is known
 * is the socket's write callback: Node calls it when the bytes have left for the kernel (or the
 * write failed), and the stream contract lets the writer reuse its memory from then on.
 *
 * So a reader lends each buffer with the number of bytes it lent; a socket of the client's own
 * Agent reports every write of a lent buffer's bytes once the write completes; when every lent
 * byte has been written, the buffer goes back to its reader. Anything else keeps it lent, and the
 * buffer is then simply left to the garbage collector, as before:
 * - a socket that is not exactly Node's (a test library's mock socket may keep the chunk after
 *   calling back), a caller's dispatcher, a proxy, HTTP/2: they are never wrapped;
 * - bytes copied on the way (a stream that joins chunks): the count is never reached;
 * - a chunk written while anything subscribes to undici's `undici:request:bodyChunkSent`
 *   channel: undici publishes the chunk right after the write, and a subscriber may keep it.
 * Not detected: a spy that replaces the write methods on `net.Socket.prototype` itself and keeps
 * the chunks (README, "Streamed uploads").
 */
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** A lent buffer: how many of its bytes are still to be written, and who gets it back. */
interface Lease {
  unwritten: number;
  readonly release: () => void;
}

/** Keyed by the memory, not the view: streams on the way may hand the socket a new view of it. */
const leases = new WeakMap<ArrayBufferLike, Lease>();

/**
 * Lends `chunk`'s memory until a socket has written `chunk.byteLength` bytes of it; `release` is
 * then called once. Lend a buffer again only after its release.
 */
export function lendUntilWritten(chunk: Uint8Array, release: () => void): void {
  leases.set(chunk.buffer, { unwritten: chunk.byteLength, release });
}

/** undici publishes each body chunk here synchronously after writing it to the socket. */
const bodyChunkSent = channel('undici:request:bodyChunkSent');

type WriteCallback = (error?: Error | null) => void;
/** `Writable.prototype.write` with its loose argument list: (chunk, encoding?, callback?) or (chunk, callback). */
type Write = (this: Socket, chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

/**
 * Whether `socket` is exactly one of Node's: its class, and no write method of its own (a mock
 * may patch the instance). Node's classes are read on first use (this module also loads where
 * there is no `node:net`); `node:tls` only for a socket that is not a plain one.
 */
function isCoreSocket(socket: Socket, nodeWrite: Write): boolean {
  const proto: unknown = Object.getPrototypeOf(socket);
  const isCore =
    proto === process.getBuiltinModule('node:net').Socket.prototype ||
    proto === process.getBuiltinModule('node:tls').TLSSocket.prototype;
  const patched = ['write', '_write', '_writev', '_writeGeneric'].some((name) => Object.hasOwn(socket, name));
  return isCore && !patched && (socket.write as unknown) === nodeWrite;
}

function coreWrite(): Write {
  return process.getBuiltinModule('node:stream').Writable.prototype.write as Write;
}

/**
 * Makes `socket` report the completed writes of lent buffers. Only a socket that is exactly a
 * Node `net.Socket` or `tls.TLSSocket`, with Node's own `write`, is wrapped: its write callback
 * is known to mean "done with the memory".
 */
export function reportWrittenLeases(socket: Socket): void {
  const nodeWrite = coreWrite();
  if (!isCoreSocket(socket, nodeWrite)) return;
  const write: Write = function write(chunk, encoding, callback) {
    const lease = ArrayBuffer.isView(chunk) ? leases.get(chunk.buffer) : undefined;
    if (lease === undefined) return nodeWrite.call(this, chunk, encoding, callback);
    const bytes = (chunk as ArrayBufferView).byteLength;
    const buffer = (chunk as ArrayBufferView).buffer;
    // Checked at the write, not at the read: a subscriber that joins mid-upload sees this chunk.
    if (bodyChunkSent.hasSubscribers) {
      leases.delete(buffer);
      return nodeWrite.call(this, chunk, encoding, callback);
    }
    const done = typeof encoding === 'function' ? (encoding as WriteCallback) : (callback as WriteCallback | undefined);
    const onWritten: WriteCallback = (error) => {
      lease.unwritten -= bytes;
      // Exactly every lent byte, once, and only while this lease stands (a write seen by a subscriber withdrew it).
      if (lease.unwritten === 0 && leases.get(buffer) === lease) {
        leases.delete(buffer);
        lease.release();
      }
      if (typeof done === 'function') done(error);
    };
    return typeof encoding === 'function'
      ? nodeWrite.call(this, chunk, onWritten)
      : nodeWrite.call(this, chunk, encoding, onWritten);
  };
  socket.write = write as Socket['write'];
}
