import { crc32, deflateSync } from 'node:zlib';

const SIDE = 64;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: its length, its type, its data, and the CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid 64 x 64 RGB PNG of a receipt (white paper, grey lines of text), for the demo's image
 * step: the package ships no image file, and the demo must run from an install. The pixels are
 * stored uncompressed (zlib level 0), so the upload has some 12 KB to show progress for.
 *
 * @example
 * ```ts
 * await writeFile(join(dir, 'receipt.png'), receiptPng())
 * ```
 */
export function receiptPng(): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < SIDE; y++) {
    const row = Buffer.alloc(1 + SIDE * 3, 0xff);
    row[0] = 0; // filter type None
    // A line of "text" every 6 rows between the margins, shorter on odd lines.
    if (y >= 8 && y < 56 && y % 6 === 2) row.fill(0x88, 1 + 8 * 3, 1 + (y % 12 === 2 ? 56 : 40) * 3);
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIDE, 0);
  header.writeUInt32BE(SIDE, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type RGB; compression, filter and interlace stay 0
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
