/**
 * The public media types. Like every file under `types/`, this imports no implementation module:
 * the runtime code (reading, checking, encoding media) lives in `core/media/media-part.ts`.
 *
 * Node's stream types are named here by their shape, not imported from `node:stream`: the main
 * entry's declarations then need no `@types/node`, which a Worker project does not have.
 */

/**
 * A Node.js `stream.Readable` (a `PassThrough`, an `fs.ReadStream`, `Readable.from(...)`), named by
 * its shape so that these declarations need no `@types/node`: every Node `Readable` has it. The
 * shape is for the compiler only: at run time the SDK recognises a real Node stream, not an object
 * that merely looks like one.
 *
 * @example
 * ```ts
 * const data: NodeReadable = Readable.from([Buffer.from('hello')])
 * ```
 */
export interface NodeReadable extends AsyncIterable<unknown> {
  /** True while the stream can be read: set by Node, false once it ended or was destroyed. */
  readonly readable: boolean;
  /** True once the last chunk was read. */
  readonly readableEnded: boolean;
  /** Ends the stream, with an error for its readers if one is given. */
  destroy(error?: Error): unknown;
}

/**
 * A Node.js `fs.ReadStream` from `createReadStream(path)`, named by its shape (see
 * {@link NodeReadable}; a real one at run time): the SDK takes the file name from its `path`.
 *
 * @example
 * ```ts
 * const media: FileReadStream = createReadStream('./photo.jpg')
 * ```
 */
export interface FileReadStream extends NodeReadable {
  /** The path the stream reads, as given to `createReadStream`. */
  readonly path: string | Uint8Array;
}

/**
 * Bytes or a stream together with the file name the service should see.
 *
 * @example
 * ```ts
 * await client.messages.send({ ..., type: 'image', media: { data: buffer, filename: 'photo.jpg' } })
 * ```
 */
export interface NamedMedia {
  /** The file's content. A stream is read once: a send that failed part-way cannot be retried with it. */
  data: Uint8Array | ArrayBuffer | Blob | NodeReadable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  /** The file name sent in the multipart part, e.g. `photo.jpg`. No control characters (line breaks, tabs, NUL). */
  filename: string;
  /**
   * The part's content type, e.g. `image/png`: printable ASCII, no control characters.
   * @default guessed from the file name's extension, else `application/octet-stream`
   */
  contentType?: string;
  /**
   * The size in bytes, for a stream whose size you know: lets the request carry a `Content-Length`.
   * @default the byte length of bytes and Blobs; unknown for streams (the body is then sent chunked)
   */
  size?: number;
}

/**
 * A file on disk, opened only when the request is written and re-opened for a retry.
 * Create it with {@link mediaFromPath}.
 *
 * @example
 * ```ts
 * const media = mediaFromPath('./receipt.png') // a PathMedia
 * console.log(media.filename, media.contentType) // 'receipt.png' 'image/png'
 * ```
 */
export class PathMedia {
  /** The file's path, as given. */
  readonly path: string;
  /** The file name sent in the multipart part. */
  readonly filename: string;
  /** The part's content type. */
  readonly contentType: string;

  /**
   * Prefer {@link mediaFromPath}, which guesses the name and content type and checks its
   * arguments; `send` checks the file exists before any network I/O.
   */
  constructor(path: string, filename: string, contentType: string) {
    this.path = path;
    this.filename = filename;
    this.contentType = contentType;
  }
}

/**
 * Options of {@link mediaFromPath}.
 *
 * @example
 * ```ts
 * mediaFromPath('./scan-0042.tmp', { filename: 'receipt.pdf', contentType: 'application/pdf' })
 * ```
 */
export interface MediaFromPathOptions {
  /**
   * The file name the service should see.
   * @default the path's base name
   */
  filename?: string;
  /**
   * The part's content type.
   * @default guessed from the file name's extension, else `application/octet-stream`
   */
  contentType?: string;
}

/**
 * What `media` accepts: a `File` or `Blob`, an `fs.ReadStream` (its file name is taken from its
 * path), `mediaFromPath(path)`, or `{ data, filename }` for bytes and other streams.
 *
 * @example
 * ```ts
 * const media: MediaInput = { data: await readFile('photo.jpg'), filename: 'photo.jpg' }
 * ```
 */
export type MediaInput = Blob | FileReadStream | PathMedia | NamedMedia;
