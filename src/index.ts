/**
 * tenant-messaging: the TypeScript SDK of the Tenant Messaging API.
 * The public surface, chosen name by name: nothing under `internal/` is reachable.
 */

export {
  APIError,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './api-error.js';
export { MessagingClient } from './client.js';
export type { UploadProgress } from './core/executor.js';
export { type ListQuery, Page, type PageLinks, type PageMeta, PagePromise } from './core/pagination.js';
export type { WaitForDeliveryOptions } from './core/poll.js';
export type { PollingOptions } from './core/poll-scheduler.js';
export { ENDPOINTS, type EndpointDefinition, type EndpointName, SCOPES, type Scope } from './endpoints.js';
export {
  APIConnectionError,
  APITimeoutError,
  DeliveryTimeoutError,
  type Issue,
  MessagingError,
  type ResponseHeaders,
  ResponseValidationError,
  SendOutcomeUnknownError,
  ValidationError,
} from './errors.js';
export type { Logger, LogLevel } from './internal/log.js';
export type { QueryValue } from './internal/query.js';
export { type MediaFromPathOptions, type MediaInput, mediaFromPath, type NamedMedia, PathMedia } from './media.js';
export type { ClientOptions, FetchLike, RequestOptions, SendOptions } from './options.js';
export { DEFAULTS } from './options.js';
export type { ContactLookupParams, Contacts } from './resources/contacts.js';
export type { Messages } from './resources/messages.js';
export type { SenderNumbers } from './resources/sender-numbers.js';
export type { JsonObject, JsonValue } from './types/json.js';
export type { KnownOrString } from './types/known-or-string.js';
export {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  MESSAGE_TYPES,
  type MessageLog,
  type MessageType,
  type ResponsePayload,
} from './types/message-log.js';
export {
  MEDIA_TYPES,
  type MediaMessageType,
  type SenderRef,
  type SendMediaParams,
  type SendMessageParams,
  type SendTextParams,
} from './types/send.js';
export { VERSION } from './version.js';
