import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { passesForSure } from '../validation/compiled-rules';
import { ApiError, FieldError } from './api-error';
import { LONE_SURROGATE_MESSAGE, NUL_MESSAGE } from './query-string';

const LOCATION: Record<string, string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

class RawValidationErrors {
  constructor(readonly errors: ValidationError[]) {}
}

function flatten(errors: ValidationError[], prefix: string): FieldError[] {
  return errors.flatMap((e) => {
    const here = `${prefix}.${e.property}`;
    // A missing required field gets one clear message instead of every rule it failed; rules that share a
    // message (an integer from 1 to 50: IsInt, Min and Max) give it once.
    const missing = e.value === undefined && e.constraints && !e.children?.length;
    // `null` for a field that cannot be null (OptionalNotNull) says so once, not with every type rule it fails.
    const isNull = e.value === null && e.constraints?.isNotNull !== undefined;
    const own = missing
      ? [{ location: here, message: 'is required' }]
      : isNull
        ? [{ location: here, message: e.constraints!.isNotNull }]
        : [...new Set(Object.values(e.constraints ?? {}))].map((message) => ({ location: here, message }));
    return own.concat(flatten(e.children ?? [], here));
  });
}

const BAD_KEY = Symbol('a key holding NUL or a lone surrogate');

/** What no stored string may hold: the NUL character (PostgreSQL text cannot) or a lone UTF-16 surrogate. */
export function badCharIn(s: string): string | null {
  if (s.includes('\0')) return NUL_MESSAGE;
  return s.isWellFormed() ? null : LONE_SURROGATE_MESSAGE;
}

/**
 * Where in a parsed JSON body a string (or a key) holds the NUL character or a lone surrogate (badCharIn), or a
 * `__proto__` key is, and why: the first such place in document order. A loop over an explicit stack rather than recursion, so no body (however
 * deep) can overflow the call stack; bodies are depth-limited at parse time too (JSON_MAX_DEPTH).
 */
export function badCharAt(body: unknown): FieldError | null {
  const stack: [unknown, string, string?][] = [[body, 'body']];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, at, why] = next;
    if (value === BAD_KEY) return { location: at, message: why! };
    if (typeof value === 'string') {
      const message = badCharIn(value);
      if (message) return { location: at, message };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const entries = Object.entries(value);
    // Pushed last first, so they are looked at in order: each key (a NUL in it is reported at its object), then
    // what is under it.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i];
      // Kept by the JSON parser as an own key, so it is an unknown field like any other, wherever it is.
      if (k === '__proto__') stack.push([BAD_KEY, `${at}.${k}`, `property ${k} should not exist`]);
      else stack.push([v, `${at}.${k}`]);
      const why = badCharIn(k);
      if (why) stack.push([BAD_KEY, at, why]);
    }
  }
  return null;
}

/**
 * No query parameter of either surface takes a list, so one given twice (`?page=1&page=2`, which the query
 * parser turns into an array) is refused by name rather than judged against rules written for one value.
 */
function refuseRepeated(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const repeated = Object.entries(query).filter(([, v]) => Array.isArray(v));
  if (repeated.length)
    throw ApiError.validation(
      repeated.map(([name]) => ({ location: `query.${name}`, message: 'must be given once' })),
    );
}

/**
 * class-validator with whitelist + forbidNonWhitelisted + transform; failures become `validation_failed`
 * with one `{location, message}` per field, located `body.<path>`, `query.<name>` or `path.<name>`.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => new RawValidationErrors(errors),
    });
  }

  /** The rules of each class, as class-validator found them (the binary-value check's lookups), kept across requests. */
  private readonly rulesByClass = new Map<unknown, unknown[]>();

  /** A value that passes every rule for sure (compiled-rules.ts) skips class-validator, which judges the rest. */
  protected override validate(
    object: object,
    validatorOptions?: ValidatorOptions,
  ): Promise<ValidationError[]> | ValidationError[] {
    const plain =
      !validatorOptions?.groups?.length && !validatorOptions?.always && !validatorOptions?.strictGroups;
    return plain && passesForSure(object) ? [] : super.validate(object, validatorOptions);
  }

  protected override findNestedBinaryValues(object: unknown): ValidationError[] {
    return super.findNestedBinaryValues(object, this.rulesByClass as Map<unknown, never[]>);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const where = LOCATION[metadata.type] ?? 'body';
    const isDto = metadata.metatype !== undefined && this.toValidate(metadata);
    if (
      metadata.type === 'body' &&
      isDto &&
      (value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw new ApiError('bad_request', 'The body must be a JSON object.', [
        { location: 'body', message: 'must be a JSON object' },
      ]);
    }
    if (metadata.type === 'query' && isDto) refuseRepeated(value);
    if (metadata.type === 'body' || (metadata.type === 'query' && isDto)) {
      const bad = badCharAt(value);
      if (bad) throw ApiError.validation([{ ...bad, location: bad.location.replace(/^body/, where) }]);
    }
    try {
      return await super.transform(value, metadata);
    } catch (e) {
      if (e instanceof RawValidationErrors) throw ApiError.validation(flatten(e.errors, where));
      throw e;
    }
  }
}
