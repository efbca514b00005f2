/**
 * tenant-messaging: the TypeScript SDK of the Tenant Messaging API: the client
 * (`MessagingClient`), `mediaFromPath`, the errors and the public types.
 *
 * @example
 * ```ts
 * import { MessagingClient } from 'tenant-messaging'
 * const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: process.env.KEY })
 * ```
 *
 * @packageDocumentation
 */
// The public surface, chosen name by name. Public types come from `types/`; nothing under
// `internal/` is exported (the `exports` map makes this file the only way in).

export {
  APIError,
  type APIErrorDetails,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './api-error.js';
export { MessagingClient } from './client.js';
export {
  type MediaFromPathOptions,
  type MediaInput,
  mediaFromPath,
  type NamedMedia,
  PathMedia,
} from './core/media/from-path.js';
export { Page, PagePromise } from './core/pagination.js';
export type { Scope } from './endpoints.js';
export { ERROR_CODES, type ErrorCode } from './error-codes.js';
export {
  APIConnectionError,
  APITimeoutError,
  type ConnectionErrorCode,
  type ConnectionErrorOptions,
  DeliveryTimeoutError,
  type Issue,
  MessagingError,
  type MessagingErrorOptions,
  MissingPeerError,
  OutcomeUnknownError,
  type ResponseHeaders,
  ResponseValidationError,
  SendOutcomeUnknownError,
  type TimeoutErrorOptions,
  ValidationError,
  type ValidationErrorOptions,
} from './errors.js';
export type { Contacts } from './resources/contacts.js';
export type { Messages } from './resources/messages.js';
export type { SenderNumbers } from './resources/sender-numbers.js';
export {
  CHANNEL_NAMES,
  type OutcomeUnknownMessage,
  type PollMessage,
  type RateLimitedMessage,
  type RequestTrace,
  type RetryMessage,
} from './types/diagnostics.js';
export type { JsonObject, JsonValue } from './types/json.js';
export type { KnownOrString } from './types/known-or-string.js';
export type { Logger, LogLevel } from './types/logger.js';
export type {
  DeliveryUpdate,
  ReconcileOptions,
  ReconcileResult,
  SendManyOptions,
  SendResult,
  TrackDeliveriesOptions,
} from './types/many.js';
export type { FileReadStream, NodeReadable } from './types/media.js';
export {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  MESSAGE_TYPES,
  type MessageLog,
  type MessageType,
  type ResponsePayload,
} from './types/message-log.js';
export type {
  ClientOptions,
  FetchLike,
  PerRecipientLimit,
  PerSenderLimit,
  RateLimitOptions,
  RequestOptions,
  SendOptions,
  UndiciDispatcher,
  UploadProgress,
} from './types/options.js';
export type { PollingOptions, WaitForDeliveryOptions } from './types/polling.js';
export type { ContactLookupParams, ListQuery, PageLinks, PageMeta, QueryValue } from './types/query.js';
export type { HttpMethod, RawRequest, ResultSchema } from './types/request.js';
export type { APIPromise, RateLimitInfo, ResponseInfo, WithResponse } from './types/response.js';
export {
  MEDIA_TYPES,
  type MediaDescription,
  type MediaMessageType,
  type SenderRef,
  type SendMediaParams,
  type SendMessageParams,
  type SendTextParams,
  type SentParams,
} from './types/send.js';
export { validateSendParams } from './validate-send.js';
export { VERSION } from './version.js';
