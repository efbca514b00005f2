/**
 * Reads a file for upload through a few buffers that are reused once the socket has written them
 * (see ../transport/write-leases.ts for when that is known and why it is safe).
 */
import { promises as fsp } from 'node:fs';
import { lendUntilWritten } from '../transport/write-leases.js';

/** Read size: one buffer per read. Node's own default for file streams. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Written buffers kept for the next reads. The reader runs only a few chunks ahead of the socket
 * (the body stream's and the socket's buffers), so a handful covers it; beyond that they are left
 * to the garbage collector.
 */
const MAX_FREE_BUFFERS = 8;

/**
 * The bytes of the file at `path`, read in order from its start. The chunks are views of reused
 * buffers; a buffer that no socket of the SDK's own reports written (another consumer) stays lent,
 * and the next reads take fresh ones.
 */
export async function* readFileChunks(path: string): AsyncGenerator<Buffer> {
  const file = await fsp.open(path, 'r');
  const free: Buffer[] = [];
  const giveBack = (buffer: Buffer) => () => {
    if (free.length < MAX_FREE_BUFFERS) free.push(buffer);
  };
  try {
    let position = 0;
    for (;;) {
      const buffer = free.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      const chunk = bytesRead === CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
      lendUntilWritten(chunk, giveBack(buffer));
      yield chunk;
    }
  } finally {
    await file.close();
  }
}
