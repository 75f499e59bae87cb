import { applyDecorators } from '@nestjs/common';
import { ValidateBy, ValidateIf } from 'class-validator';

/** The class-validator name of the rule, which the validation pipe reports alone (`must not be null`). */
export const NOT_NULL = 'isNotNull';

/**
 * In place of IsOptional for a field that may be left out but cannot be null (PATCH `host_id`): left out, it is
 * not validated; `null` is `validation_failed` at the field (`must not be null`) instead of silently ignored.
 */
export const OptionalNotNull = (): PropertyDecorator =>
  applyDecorators(
    ValidateIf((_o: object, v: unknown) => v !== undefined),
    ValidateBy({
      name: NOT_NULL,
      validator: { validate: (v: unknown) => v !== null, defaultMessage: () => 'must not be null' },
    }),
  );
