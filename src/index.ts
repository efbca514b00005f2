/**
 * tenant-messaging: the TypeScript SDK of the Tenant Messaging API.
 * The public surface, chosen name by name: nothing under `internal/` is reachable.
 */
export { MessagingClient } from './client.js';
export type { ClientOptions, RequestOptions, FetchLike } from './options.js';
export { DEFAULTS } from './options.js';
export type { WaitForDeliveryOptions } from './core/poll.js';
export { Page, PagePromise, type PageMeta, type PageLinks, type ListQuery } from './core/pagination.js';
export type { QueryValue } from './internal/query.js';
export { mediaFromPath, PathMedia, type MediaInput, type NamedMedia, type MediaFromPathOptions } from './media.js';
export type { ContactLookupParams } from './resources/contacts.js';
export type { Messages } from './resources/messages.js';
export type { Contacts } from './resources/contacts.js';
export type { SenderNumbers } from './resources/sender-numbers.js';
export {
  type MessageLog,
  type ResponsePayload,
  type DeliveryStatus,
  type MessageType,
  DELIVERY_STATUSES,
  MESSAGE_TYPES,
  messageLogSchema,
} from './schemas/message-log.js';
export {
  type SendMessageParams,
  type SendTextParams,
  type SendMediaParams,
  type SenderRef,
  type MediaMessageType,
  MEDIA_TYPES,
  sendMessageParamsSchema,
} from './schemas/send.js';
export type { KnownOrString } from './schemas/known-or-string.js';
export type { JsonObject, JsonValue } from './schemas/json.js';
export { ENDPOINTS, SCOPES, type Scope, type EndpointName, type EndpointDefinition } from './endpoints.js';
export {
  MessagingError,
  ValidationError,
  ResponseValidationError,
  APIConnectionError,
  APITimeoutError,
  DeliveryTimeoutError,
  type Issue,
  type ResponseHeaders,
} from './errors.js';
export {
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
} from './api-error.js';
export { VERSION } from './version.js';
