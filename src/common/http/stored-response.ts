/**
 * A response decided instead of the handler's (an idempotent replay): thrown from an interceptor before the handler
 * runs, or from the transaction of a `@ClaimedWithCommit` route, which then rolls back; sent as is by the global
 * filter, so no side effect repeats.
 */
export class StoredResponse {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {}
}
