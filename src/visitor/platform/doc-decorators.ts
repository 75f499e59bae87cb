import { applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { VisitorErrorCode } from '../../common/errors/error-codes';

/**
 * The error codes a route's own handler can answer beside those the document builder derives from the route itself
 * (docs/openapi.builder.ts: `unauthorized`, `scope_missing`, `forbidden`, `plan_required`, `not_found` with a path
 * id, `validation_failed`, `conflict` and `idempotency_key_reused` on a POST, `rate_limited`, `bad_request`,
 * `internal_error`, `unavailable`). Name only what the service really throws (`invalid_state` of a state machine,
 * `conflict` of a taken slot or e-mail, `consent_required`, `plan_required` of a plan limit): the contract checker
 * refuses an answer whose status and code the operation does not list. Carried as `x-error-codes`, which the
 * builder reads and removes.
 */
export const ApiErrors = (...codes: VisitorErrorCode[]) => ApiExtension('x-error-codes', codes);

/**
 * What the 2xx example of this operation shows beside the example the response schema gives (e.g. a check-in
 * answers `status: checked_in`, not the schema's first status). Merged into the schema's example by the builder,
 * which removes the `x-example` extension.
 */
export const ApiExampleShows = (fields: Record<string, unknown>) =>
  applyDecorators(ApiExtension('x-example', fields));
