export { Gatehouse } from './client';
export type {
  ClientPaths,
  GatehouseOptions,
  ListQuery,
  Page,
  PagedPath,
  PageItem,
  RawClient,
  Success,
} from './client';
export { GatehouseError, isGatehouseError } from './errors';
export type { FieldError, GatehouseErrorCode, Problem } from './errors';
export { OAuthRefreshError } from './oauth';
export type { OAuthOptions, OAuthTokens } from './oauth';
export { parseRetryAfter, retryDelay } from './retry';
export type { RetryOptions } from './retry';
export type { FetchLike } from './transport';
export { webhooks, WebhookVerificationError } from './webhooks';
export type { HeadersLike, WebhookEvent, WebhookEventType } from './webhooks';
export type { components, operations, paths } from './generated/v1';
