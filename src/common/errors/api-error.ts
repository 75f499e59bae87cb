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
  ) {
    super(detail);
    this.name = 'ApiError';
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
