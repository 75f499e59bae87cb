/**
 * A response decided before the handler ran (an idempotent replay): thrown from an interceptor and sent as is
 * by the global filter, so no handler runs and no side effect repeats.
 */
export class StoredResponse {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {}
}
