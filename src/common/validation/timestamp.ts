import { registerDecorator, ValidationOptions } from 'class-validator';
import { ApiError } from '../errors/api-error';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** True for an RFC 3339 timestamp with a zone (`2026-11-22T09:30:00Z`) that names a real moment. */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !RFC3339.test(value)) return false;
  const t = Date.parse(value);
  if (Number.isNaN(t)) return false;
  // Date.parse rolls 2026-02-30 over to March: compare the calendar date it read with the one written.
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

/** class-validator: an RFC 3339 timestamp with a time zone. */
export function IsTimestamp(options: ValidationOptions = {}): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) =>
    registerDecorator({
      name: 'isTimestamp',
      target: target.constructor,
      propertyName: String(propertyKey),
      options: { message: 'must be an RFC 3339 timestamp such as 2026-11-22T09:30:00Z', ...options },
      validator: { validate: (v: unknown) => isTimestamp(v) },
    });
}

/**
 * The time range two validated timestamp query parameters give (either may be absent): `to` must be after `from`,
 * else `validation_failed` at `query.<toName>`. `queryRange(q, 'created_after', 'created_before')`.
 */
export function queryRange<Q extends object>(
  q: Q,
  fromName: keyof Q & string,
  toName: keyof Q & string,
): { from?: Date; to?: Date } {
  const [a, b] = [q[fromName], q[toName]] as (string | undefined)[];
  const from = a ? new Date(a) : undefined;
  const to = b ? new Date(b) : undefined;
  if (from && to && from >= to)
    throw ApiError.validation([{ location: `query.${toName}`, message: `must be after ${fromName}` }]);
  return { from, to };
}
