import { Transform } from 'class-transformer';

const DECIMAL = /^-?[0-9]+$/;

/**
 * An integer query parameter: only plain decimal digits (an optional minus) become a number. `Number()` would also
 * take `0x10`, `1e2`, ` 5` and `1.0`; those stay NaN here, so the property's IsInt refuses them at `query.<name>`.
 */
export const DecimalInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN,
  );
