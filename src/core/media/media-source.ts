/**
 * Reading a caller's media source without letting its failure escape.
 *
 * A Node stream that errors while nobody listens raises an unhandled 'error' event, which ends
 * the process: an `fs.createReadStream` of a missing file fails a moment after it is created,
 * long before the request reaches the media part (the schemas load, the request may wait for a
 * pooled connection). So the SDK listens from the moment `send` receives the stream, remembers
 * the failure, and reports it, like every other failure of the source, as a `ValidationError`
 * on the `send` promise. Kept free of the multipart stack: `send` loads it for every call.
 */
import { Readable } from 'node:stream';
import { ValidationError } from '../../errors.js';
import { describeValue } from '../../internal/values/describe-value.js';
import { wholeTurn } from '../../internal/waiting/whole-turn.js';
import type { NodeReadable } from '../../types/media.js';

/** What became of a caller's Node stream since the SDK started listening to it. */
interface Watch {
  failed: boolean;
  error: unknown;
}

const watches = new WeakMap<Readable, Watch>();

/** The error `send` rejects with when a media source fails, whatever the moment and the cause. */
export function mediaSourceFailed(cause: unknown): ValidationError {
  let reason: string;
  try {
    reason = cause instanceof Error ? cause.message : describeValue(cause);
  } catch {
    // A source that failed with a Proxy whose traps throw (instanceof itself throws): still a ValidationError.
    reason = describeValue(cause);
  }
  return new ValidationError(
    'The media source failed',
    [
      {
        path: 'media',
        message: `the media source failed before it was sent whole (${reason}); the message was not sent. Fix the source (file, stream) and send again with a new one`,
        hint: 'the original error is error.cause',
      },
    ],
    { cause },
  );
}

/**
 * Starts listening for errors of the Node stream in `params.media` (a stream, or `{ data: stream }`).
 * Called with the caller's parameters before `send` awaits anything; never throws.
 */
export function watchMediaSource(params: object): void {
  try {
    const media = peek(params, 'media');
    const stream = media instanceof Readable ? media : peek(media, 'data');
    if (stream instanceof Readable) watchStream(stream);
  } catch {
    // A throwing Proxy trap: the parameter check reads the value again and says what is wrong.
  }
}

/**
 * An own data property's value, read without calling a getter: the parameter check must be the
 * one read of each field (a getter may answer differently each time); a stream behind a getter
 * is watched from the moment the check has read it.
 */
function peek(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const own = Object.getOwnPropertyDescriptor(value, key);
  return own && 'value' in own ? own.value : undefined;
}

/**
 * Whether `value` is a Node `Readable`: a guard, so that the public types, which name it by its
 * shape (`NodeReadable`), narrow as `instanceof Readable` alone cannot make them.
 */
export function isNodeReadable(value: unknown): value is NodeReadable {
  return value instanceof Readable;
}

/** Listens for the stream's error until it closes; idempotent. */
export function watchStream(stream: Readable): Watch {
  const known = watches.get(stream);
  if (known) return known;
  const watch: Watch = { failed: stream.errored !== null, error: stream.errored };
  watches.set(stream, watch);
  const onError = (error: unknown) => {
    if (watch.failed) return;
    watch.failed = true;
    watch.error = error;
  };
  // Even on a stream already closed: destroy(error) closes at once but emits 'error' a tick later.
  stream.on('error', onError);
  // After 'close' a stream emits nothing more: leave no listener behind on the caller's object.
  stream.once('close', () => stream.off('error', onError));
  return watch;
}

/** The failure of a watched stream, as `send` reports it; undefined while it is fine. */
export function failureOf(stream: Readable): ValidationError | undefined {
  const watch = watches.get(stream);
  return watch?.failed ? mediaSourceFailed(watch.error) : undefined;
}

/** The longest a media source is read without letting the event loop turn, in ms. */
const MAX_TURN_MS = 10;

/**
 * The largest piece handed to the multipart encoder. form-data-encoder (4.1) re-slices a larger
 * chunk from the start of its ArrayBuffer, ignoring the view's offset, so a view into a larger
 * buffer (`bytes.subarray(1000)`, a pooled Buffer) would go out as the wrong bytes; pieces of at
 * most this size pass through it as they are (and are not copied).
 */
const MAX_PIECE_BYTES = 64 * 1024;

/**
 * Yields the source's bytes; any failure of the source (an error, a destroyed stream, a chunk
 * that is not bytes, more or fewer bytes than the declared size) becomes `mediaSourceFailed`.
 * `size` is checked because the request declared it as its Content-Length: a different count
 * would break the request mid-flight as a connection error, which reads as "may have been sent".
 */
export async function* readSource(
  source: () => AsyncIterable<unknown> | Iterable<unknown>,
  size: number | undefined,
  failure: () => ValidationError | undefined = () => undefined,
): AsyncGenerator<Uint8Array> {
  let sent = 0;
  let turnAt = performance.now() + MAX_TURN_MS;
  const early = failure();
  if (early) throw early;
  try {
    for await (const chunk of source()) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (!(bytes instanceof Uint8Array)) throw new TypeError(`the source yielded ${typeof chunk}, not bytes`);
      sent += bytes.byteLength;
      if (size !== undefined && sent > size) throw new RangeError(`the source has more than its size, ${size} bytes`);
      for (let at = 0; ; at += MAX_PIECE_BYTES) {
        // A source that yields many tiny chunks at once (a stream of a few bytes per push) is read,
        // encoded and written in one chain of promise jobs while the socket takes every write at
        // once: timers never run, so the loop stalls and the call's deadline cannot fire. Giving
        // the loop a turn now and then bounds both.
        if (performance.now() > turnAt) {
          await wholeTurn();
          turnAt = performance.now() + MAX_TURN_MS;
        }
        const end = at + MAX_PIECE_BYTES;
        yield at === 0 && end >= bytes.byteLength ? bytes : bytes.subarray(at, end);
        if (end >= bytes.byteLength) break;
      }
    }
  } catch (error) {
    // A watched stream's own error explains more than the premature close its reader sees.
    throw failure() ?? mediaSourceFailed(error);
  }
  if (size !== undefined && sent !== size) {
    throw mediaSourceFailed(new RangeError(`the source ended after ${sent} of its ${size} bytes`));
  }
}

/** The chunks of a web `ReadableStream`, read through its reader (any implementation has one). */
export async function* webStreamChunks(stream: ReadableStream<unknown>): AsyncGenerator<unknown> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Ends the caller's stream when the request stops early; harmless once it is done.
    reader.cancel().catch(() => undefined);
  }
}
