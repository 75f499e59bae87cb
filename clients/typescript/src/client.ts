import createClient from 'openapi-fetch';
import type { Client, ClientPathsWithMethod, FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import { GatehouseError } from './errors';
import type { paths } from './generated/v1';
import { OAuthOptions, TokenRefresher } from './oauth';
import { RetryOptions, retryPolicy } from './retry';
import { FetchLike, transport, TransportOptions } from './transport';
import { webhooks } from './webhooks';

type LooseKeyHeader<H> = H extends { 'Idempotency-Key': string }
  ? Omit<H, 'Idempotency-Key'> & { 'Idempotency-Key'?: string }
  : H;
type LooseKeyOperation<Op> = Op extends { parameters: { header: infer H } }
  ? Omit<Op, 'parameters'> & { parameters: Omit<Op['parameters'], 'header'> & { header?: LooseKeyHeader<H> } }
  : Op;

/**
 * The generated /v1 paths with `Idempotency-Key` optional on every POST: the client adds one (and keeps it across
 * retries). A key given in `params.header` is sent as is (to make a call idempotent across processes).
 */
export type ClientPaths = {
  [P in keyof paths]: {
    [M in keyof paths[P]]: M extends 'post' ? LooseKeyOperation<paths[P][M]> : paths[P][M];
  };
};

export type RawClient = Client<ClientPaths, 'application/json'>;
type HttpVerb = 'get' | 'post' | 'patch' | 'delete';

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type InitParam<I> =
  RequiredKeys<I> extends never ? [(I & { [key: string]: unknown })?] : [I & { [key: string]: unknown }];
/** What a successful call resolves to: the 2xx body (undefined for a 204). */
export type Success<M extends HttpVerb, P extends keyof ClientPaths, I> = Exclude<
  FetchResponse<NonNullable<ClientPaths[P][M & keyof ClientPaths[P]]>, I, 'application/json'>,
  { error: unknown }
>['data'];
type Method<M extends HttpVerb> = <
  P extends ClientPathsWithMethod<RawClient, M>,
  I extends MaybeOptionalInit<ClientPaths[P], M>,
>(
  url: P,
  ...init: InitParam<I>
) => Promise<Success<M, P, I>>;

/** The JSON body of a path's 200 GET. */
type GetBody<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
/** The /v1 lists paged with cursors (`data`, `has_more`, `next_cursor`; query `limit`, `cursor`). */
export type PagedPath = {
  [P in keyof paths]: GetBody<P> extends { data: unknown[]; has_more: boolean; next_cursor: string | null }
    ? P
    : never;
}[keyof paths];
export type Page<P extends PagedPath> = GetBody<P>;
export type PageItem<P extends PagedPath> = GetBody<P> extends { data: (infer T)[] } ? T : never;
/** A list's query without `cursor` (the iterator sets it). */
export type ListQuery<P extends PagedPath> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? Omit<NonNullable<Q>, 'cursor'>
  : never;

export interface GatehouseOptions {
  /** The API root, ending in `/v1` (e.g. `https://gatehouse.example/v1`). */
  baseUrl: string;
  /** An API key (`svc_sk_test_…`, `svc_sk_live_…`, or a publishable `svc_pk_…`). */
  apiKey?: string;
  /** A connected app's OAuth tokens instead of an API key; refreshed once on a 401. */
  oauth?: OAuthOptions;
  /** Retries of 429, 503 and network errors (`false`: none). */
  retry?: RetryOptions | false;
  /** The fetch to send with (default: the global fetch), e.g. for a proxy agent or a test double. */
  fetch?: FetchLike;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
  onRetry?: TransportOptions['onRetry'];
}

/**
 * The /v1 client. `get`, `post`, `patch` and `del` resolve to the response body and throw a GatehouseError on any
 * error; `raw` is the underlying openapi-fetch client (`{ data, error, response }`, no throw) on the same
 * transport (idempotency keys, retries, token refresh).
 */
export class Gatehouse {
  readonly raw: RawClient;
  readonly webhooks = webhooks;

  constructor(options: GatehouseOptions) {
    if (!options.apiKey === !options.oauth) throw new TypeError('Gatehouse: give either apiKey or oauth');
    const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.raw = createClient<ClientPaths, 'application/json'>({
      baseUrl: options.baseUrl,
      headers: options.headers,
      fetch: transport({
        fetch: base,
        retry: retryPolicy(options.retry),
        apiKey: options.apiKey,
        oauth: options.oauth ? new TokenRefresher(options.oauth, base) : undefined,
        onRetry: options.onRetry,
      }),
    });
  }

  readonly get: Method<'get'> = (url, ...init) => this.call('GET', url, init[0]);
  readonly post: Method<'post'> = (url, ...init) => this.call('POST', url, init[0]);
  readonly patch: Method<'patch'> = (url, ...init) => this.call('PATCH', url, init[0]);
  readonly del: Method<'delete'> = (url, ...init) => this.call('DELETE', url, init[0]);

  /** The pages of a list, following `next_cursor` while `has_more`. */
  async *pages<P extends PagedPath>(path: P, query?: ListQuery<P>): AsyncGenerator<Page<P>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = (await this.call('GET', path, {
        params: { query: { ...(query ?? {}), ...(cursor === undefined ? {} : { cursor }) } },
      })) as { data: unknown[]; has_more: boolean; next_cursor: string | null };
      yield page as Page<P>;
      if (!page.has_more || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  /** Every item of a list, page after page: `for await (const visit of gh.paginate('/visits', { limit: 100 }))`. */
  async *paginate<P extends PagedPath>(
    path: P,
    query?: ListQuery<P>,
  ): AsyncGenerator<PageItem<P>, void, undefined> {
    for await (const page of this.pages(path, query))
      for (const item of (page as { data: PageItem<P>[] }).data) yield item;
  }

  private async call<T>(method: string, url: string, init: unknown): Promise<T> {
    const request = this.raw.request as unknown as (
      method: string,
      url: string,
      init: unknown,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method.toLowerCase(), url, init);
    if (!response.ok) throw GatehouseError.fromResponse(response, error);
    return data as T;
  }
}
