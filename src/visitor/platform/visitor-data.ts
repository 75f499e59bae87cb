import { SetMetadata } from '@nestjs/common';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Tenant } from './tenant';

export const VISITOR_DATA = 'gatehouse:visitor-data';

/**
 * What one person's erasure has found so far, passed from holder to holder in `order`. The person is a visitor
 * (DELETE /v1/visitors/{id}), or a booking's attendee who never became one (DELETE /v1/bookings/{id}/attendee):
 * then `visitorId` is null, so holders keyed by the visitor match nothing, and the booking seeds `relatedIds`.
 */
export interface Erasure {
  visitorId: string | null;
  /** The person's phone number: bookings made with it are theirs (the rule by which visits match visitors). */
  phone: string | null;
  now: Date;
  /**
   * Ids of the person's own records: the booking an attendee erasure starts from, then those earlier holders
   * found (their bookings, their visits), for rows that refer to those.
   */
  relatedIds: string[];
}

/**
 * A repository that stores visitor data. Visitor erasure (`VisitorErasure`, DELETE /v1/visitors/{id}) finds every
 * provider marked `@HoldsVisitorData(order)` and calls `eraseVisitor` on each, in `order`, in one transaction:
 * a new table that holds visitor data is covered by adding this method and the decorator to its repository.
 */
export interface VisitorDataHolder {
  eraseVisitor(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void>;
}

/** Marks a provider as a `VisitorDataHolder`; lower `order` runs first. */
export const HoldsVisitorData = (order: number): ClassDecorator => SetMetadata(VISITOR_DATA, order);

/**
 * SQL: the jsonb visit `json` (a visit object at `path`, e.g. `{data,object}` in an event, `{}` for a visit
 * response) with what erasure removes: the visitor's details (the id stays), answers, purpose and the reasons
 * given on cancel and on a decision. `$1` is the visitor's id.
 */
export function erasedVisitSql(json: string, path: string): string {
  const at = (field: string) => `'{${[path.slice(1, -1), field].filter(Boolean).join(',')}}'`;
  const b = `jsonb_set(jsonb_set(jsonb_set(jsonb_set(${json}, ${at('visitor')},
      jsonb_build_object('id', $1::text, 'name', NULL, 'phone', NULL, 'email', NULL, 'company', NULL)),
    ${at('custom_fields')}, '{}'::jsonb), ${at('purpose')}, '""'::jsonb), ${at('cancel_reason')}, 'null')`;
  return `CASE WHEN jsonb_typeof((${json}) #> ${at('decision')}) = 'object'
               THEN jsonb_set(${b}, ${at('decision,reason')}, 'null') ELSE ${b} END`;
}

/**
 * SQL: the jsonb booking `json` (a booking object at `path`, as `erasedVisitSql`) with what erasure removes: the
 * attendee's details, answers and the reasons given on decline and on cancel. Used for the events carrying a
 * booking and for stored responses of booking requests, so a replay answers with the booking as it now reads.
 */
export function erasedBookingSql(json: string, path: string): string {
  const at = (field: string) => `'{${[path.slice(1, -1), field].filter(Boolean).join(',')}}'`;
  return `jsonb_set(jsonb_set(jsonb_set(jsonb_set(${json}, ${at('attendee')},
      jsonb_build_object('name', NULL, 'phone', NULL, 'email', NULL, 'company', NULL)),
    ${at('custom_fields')}, '{}'::jsonb), ${at('decline_reason')}, 'null'), ${at('cancel_reason')}, 'null')`;
}

/**
 * SQL: the JSON text in `column` as jsonb, with every escape `\uD800` to `\uDFFF` read as U+FFFD. JSON.stringify writes
 * a lone UTF-16 surrogate as such an escape (a pair it writes as the character itself), and PostgreSQL's jsonb
 * refuses it; rows stored before lone surrogates were refused at the edge may hold one. An escaped backslash
 * before `u` (`\\ud800` in the text: a backslash, then `ud800`) is left alone.
 */
export function readableJsonbSql(column: string): string {
  return `regexp_replace(${column}, '(?<!\\\\)((?:\\\\\\\\)*)\\\\u[dD][89a-fA-F][0-9a-fA-F]{2}', '\\1\\\\ufffd', 'g')::jsonb`;
}

/**
 * SQL: whether the JSON text in `column` holds a visit object at `path` whose visitor is `$1`. Only texts that
 * mention the id at all are read as jsonb (CASE fixes the order), so no other row of the organisation is parsed,
 * and those are read with lone-surrogate escapes mended (readableJsonbSql): one unreadable body cannot block an
 * erasure.
 */
export function aboutVisitorSql(column: string, path: string): string {
  const at = `'{${[path.slice(1, -1), 'visitor,id'].filter(Boolean).join(',')}}'`;
  return `CASE WHEN strpos(${column}, $1) > 0 THEN ${readableJsonbSql(column)} #>> ${at} END = $1`;
}

/**
 * SQL: whether the JSON text in `column` holds an object at `path` whose id is one of the text array `ids` (a
 * parameter such as `$4`). As `aboutVisitorSql`, only texts that mention one of the ids are read as jsonb.
 */
export function aboutRecordsSql(column: string, path: string, ids: string): string {
  const at = `'{${[path.slice(1, -1), 'id'].filter(Boolean).join(',')}}'`;
  return `CASE WHEN EXISTS (SELECT 1 FROM unnest(${ids}::text[]) AS r(id) WHERE strpos(${column}, r.id) > 0)
               THEN ${readableJsonbSql(column)} #>> ${at} END = ANY(${ids}::text[])`;
}
