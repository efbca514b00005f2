import type { Readable } from 'node:stream';
import type { EndpointName, PathParams } from '../../endpoints.js';
import type { ListQuery } from '../../types/query.js';
import type { LaneKeys } from '../rate/lanes.js';
import type { ApiResult } from './response.js';

/** A request body the executor can (re)produce for each attempt. */
export type RequestBody =
  | { readonly kind: 'json'; readonly text: string }
  | {
      readonly kind: 'stream';
      /** Produces the body and its headers; called once per attempt. */
      readonly open: () => { stream: Readable; headers: Record<string, string> };
      /** False for one-shot sources (a caller's stream): such a body is never sent twice. */
      readonly replayable: boolean;
    };

/** What a resource gives for one call of an endpoint: its path ids, query and body. */
export type CallRequest<Name extends EndpointName> = (PathParams<Name> extends undefined
  ? { readonly params?: undefined }
  : { readonly params: PathParams<Name> }) & {
  readonly query?: ListQuery | undefined;
  readonly body?: RequestBody | undefined;
  /** A send's sender and recipient lanes (only with `rateLimit.perSender`/`perRecipient`). */
  readonly lanes?: SendLanes | undefined;
};

/** Who to tell when a send waits in a lane and when it has passed them (`sendMany`'s accounting). */
export interface LaneHooks {
  /** The send waits in a lane (its sender's or recipient's turn has not come). */
  readonly onBlocked: () => void;
  /** The send has passed its lanes (it may still wait at the key-wide gate). */
  readonly onPassed: () => void;
  /**
   * Aborts the send while, and only while, it waits in a lane (it certainly has not gone out):
   * a `sendMany` that stops does not send what its lanes still hold.
   */
  readonly signal?: AbortSignal | undefined;
}

/** The lanes a send passes, and its hooks. */
export interface SendLanes {
  readonly keys: LaneKeys;
  readonly hooks?: LaneHooks | undefined;
}

/** What any route is called with: its path ids (checked by the route), query and body. */
export interface AnyCallRequest {
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly query?: ListQuery | undefined;
  readonly body?: RequestBody | undefined;
  readonly lanes?: SendLanes | undefined;
}

/**
 * One logical call as a resource describes it: what to send (or how to build it, inside the
 * call's trace: checks and file stats included), how to read the answer, and how to name a
 * failure for this endpoint.
 */
export interface CallSpec<Request, T> {
  readonly request: Request | (() => Request | Promise<Request>);
  readonly parse: (result: ApiResult) => T | Promise<T>;
  /** Maps a failure to what the caller gets (e.g. `SendOutcomeUnknownError`). */
  readonly mapError?: ((error: unknown) => unknown) | undefined;
}
