import { Transform } from 'class-transformer';

const DECIMAL = /^(0|-?[1-9][0-9]*)$/;

/**
 * An integer query parameter: only a plain decimal integer (digits without a leading zero, an optional minus)
 * becomes a number. `Number()` would also take `0x10`, `1e2`, ` 5`, `1.0` and `050`; those stay NaN here, so the
 * property's IsInt refuses them at `query.<name>`.
 */
export const DecimalInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN,
  );
