import { ErrorCode } from './error-codes';

/** One field-level problem; `location` is `body.<path>`, `query.<name>`, `path.<name>` or `header.<name>`. */
export interface FieldError {
  location: string;
  message: string;
}

/** The only error domain code throws. Rendered per surface by the error filter. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
    /**
     * The scopes the refused call needs, for a Bearer challenge (`unauthorized`, `scope_missing`): the error renderer
     * names them in `WWW-Authenticate` under a protected resource (`common/errors/bearer-challenge.ts`).
     */
    readonly scopes: readonly string[] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  /** The same error, naming the scopes the call needs (see `scopes`). */
  needing(scopes: readonly string[]): ApiError {
    return new ApiError(this.code, this.detail, this.errors, this.headers, scopes);
  }

  static validation(errors: FieldError[], detail?: string): ApiError {
    const first = errors[0];
    return new ApiError(
      'validation_failed',
      detail ??
        (errors.length === 1
          ? `${first.location}: ${first.message}`
          : `${errors.length} fields are invalid: ${errors.map((e) => e.location).join(', ')}`),
      errors,
    );
  }

  static notFound(what = 'The requested object'): ApiError {
    return new ApiError('not_found', `${what} was not found.`);
  }
}
