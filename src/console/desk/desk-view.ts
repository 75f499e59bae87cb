import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { ApiError, FieldError } from '../../common/errors/api-error';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import type { AuditService } from '../../visitor/audit/audit.service';
import { Role, roleAllows, Scope } from '../../visitor/platform/scopes';
import type { Tenant } from '../../visitor/platform/tenant';
import type { ConsoleTenantOf } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { isClientError } from '../webhooks/flash';

export const DESK = '/console/desk';

/** The roles of the desk page (the nav row) that the API lets do `scope`: the roles of an action or section. */
export const deskRoles = (scope: Scope): Role[] => consoleRoles(DESK).filter((r) => roleAllows(r, scope));

export const tenantOf = (t: ConsoleTenantOf): Tenant => ({
  organisationId: t.organisationId,
  livemode: t.livemode,
});
export const modeOf = (t: ConsoleTenantOf) => (t.livemode ? 'live' : 'test');

/** `path` in the console's mode (forms post there too, so an action works on the mode the page showed). */
export const inMode = (t: ConsoleTenantOf, path: string) =>
  `${path}${path.includes('?') ? '&' : '?'}mode=${modeOf(t)}`;

/** The desk's sections (sub-navigation); the watchlist only for roles that may change it (Owners, Admins). */
export function deskTabs(
  a: ConsoleCaller,
  t: ConsoleTenantOf,
  current: 'deliveries' | 'rollcalls' | 'watchlist',
) {
  return [
    { key: 'deliveries', title: 'Deliveries', href: inMode(t, DESK) },
    { key: 'rollcalls', title: 'Roll calls', href: inMode(t, `${DESK}/roll-calls`) },
    ...(roleAllows(a.role, 'watchlist:write')
      ? [{ key: 'watchlist', title: 'Watchlist', href: inMode(t, `${DESK}/watchlist`) }]
      : []),
  ].map((x) => ({ ...x, current: x.key === current }));
}

const flat = (errors: ValidationError[], prefix = 'body'): FieldError[] =>
  errors.flatMap((e) => [
    ...Object.values(e.constraints ?? {}).map((message) => ({
      location: `${prefix}.${e.property}`,
      message,
    })),
    ...flat(e.children ?? [], `${prefix}.${e.property}`),
  ]);

/** A form's fields as the /v1 body class `cls` (validated the same way), or `validation_failed` with each problem. */
export function checked<T extends object>(cls: new () => T, plain: Record<string, unknown>): T {
  const body = plainToInstance(cls, plain);
  const errors = flat(validateSync(body, { whitelist: true, forbidNonWhitelisted: true }));
  if (errors.length) throw ApiError.validation(errors);
  return body;
}

/** The problems of a refused form (4xx) as lines for the page, `field: message`; other errors are thrown on. */
export function problemLines(e: unknown): string[] {
  if (!isClientError(e)) throw e;
  return e.errors.length
    ? e.errors.map((x) => `${x.location.replace(/^body\./, '')}: ${x.message}`)
    : [e.detail];
}

/** A text field of a form, trimmed; empty → undefined (the /v1 bodies treat absent and empty alike). */
export const field = (v: string | undefined): string | undefined => {
  const s = (v ?? '').trim();
  return s === '' ? undefined : s;
};

/** What a desk action did, for the audit trail: the action, its target and what else to record. */
export interface DeskChange {
  action: string;
  target: { type: string; id: string };
  data?: Record<string, unknown>;
}

/** Records a desk change in the audit trail, with the request (id and IP) and the console account. */
export function deskAudit(
  audit: AuditService,
  req: FastifyRequest,
  a: ConsoleCaller,
  t: ConsoleTenantOf,
  change: DeskChange,
) {
  return audit.record({
    organisationId: t.organisationId,
    livemode: t.livemode,
    action: change.action,
    actor: { type: 'console_account', id: a.id },
    target: change.target,
    data: change.data,
    request: req,
  });
}

/**
 * A desk action (post, redirect, get): `run` changes through the domain service and says what it did; the change
 * is audited and the answer goes to `to` (default `back`) with the notice `?notice=<notice>`. A refused action
 * (4xx) goes to `back` with the problem code and this request's id; anything else is thrown on (error page).
 */
export async function deskAction(
  ctx: { audit: AuditService; req: FastifyRequest; a: ConsoleCaller; t: ConsoleTenantOf },
  back: string,
  run: () => Promise<DeskChange & { notice: string; to?: string }>,
) {
  try {
    const done = await run();
    await deskAudit(ctx.audit, ctx.req, ctx.a, ctx.t, done);
    const [path, hash] = (done.to ?? back).split('#');
    return { url: `${path}&notice=${done.notice}${hash ? `#${hash}` : ''}`, statusCode: 303 };
  } catch (e) {
    return failedDeskAction(ctx.req, e, back);
  }
}

/**
 * A form whose answer is its page again: `run` makes the change and renders; a refused change (4xx) renders
 * `again` with each problem as a line and the error (`notDone`) with this request's id. Others are thrown on.
 */
export async function submitted<T>(
  req: FastifyRequest,
  notDone: string,
  run: () => Promise<T>,
  again: (refusal: { errors: string[]; error: { message: string; requestId: string } }) => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const errors = problemLines(e);
    req.ctx.errorCode = (e as ApiError).code;
    return again({ errors, error: { message: notDone, requestId: String(req.id) } });
  }
}

/**
 * A cursor page of a desk list, or (for a link whose cursor is stale or edited, or a bad filter) no page and the
 * error to show with the request id.
 */
export async function listOrError<P>(
  req: FastifyRequest,
  fetch: () => Promise<P>,
): Promise<{ page: P | null; error: { message: string; requestId: string } | null }> {
  try {
    return { page: await fetch(), error: null };
  } catch (e) {
    problemLines(e);
    return {
      page: null,
      error: {
        message: 'This list link is out of date or not valid; start again from the first page.',
        requestId: String(req.id),
      },
    };
  }
}

/** The query's cursor, as a list query wants it. */
export const cursorOf = (q: Record<string, unknown>) =>
  typeof q.cursor === 'string' && q.cursor ? { cursor: q.cursor } : {};

/** The filters a pager link keeps: the query without the flash of a redirect. */
export const listQuery = (q: Record<string, unknown>) => ({ ...q, notice: '', error: '', request_id: '' });

/** What every desk page shows above its own content: sections, flash from a redirect, the CSRF token. */
export const deskHeader = (
  a: ConsoleCaller,
  t: ConsoleTenantOf,
  section: 'deliveries' | 'rollcalls' | 'watchlist',
  query: Record<string, unknown>,
  csrf?: string,
) => ({ csrf, tabs: deskTabs(a, t, section), mode: modeOf(t), ...deskFlash(query) });

/** Fixed sentences of a redirect back after an action (`?notice=<key>`), never text from the URL. */
const NOTICES: Record<string, string> = {
  collected: 'Delivery marked collected.',
  returned: 'Delivery returned to the sender.',
  started: 'Roll call started: everyone on site when it started is listed.',
  marked: 'Marked.',
  closed: 'Roll call closed.',
  removed: 'Watchlist entry removed. Matches already recorded keep it.',
};

/** What a failed action says after its redirect (`?error=<code>&request_id=<id>`). */
const ERRORS: Record<string, string> = {
  invalid_state:
    'Not done: it changed meanwhile (already collected, returned or closed). It is shown as it is now.',
  conflict: 'Not done: a roll call is already active at that site. Close it before starting another.',
  not_found: 'Not done: it no longer exists.',
  validation_failed: 'Not done: the form was not valid.',
  forbidden: 'Not done: your role does not allow it.',
};

const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;

/** The notice and error of a page reached by the redirect after an action. */
export function deskFlash(q: Record<string, unknown>) {
  const s = (k: string) => (typeof q[k] === 'string' ? (q[k] as string) : '');
  return {
    notice: Object.hasOwn(NOTICES, s('notice')) ? NOTICES[s('notice')] : null,
    error:
      s('error') && REQUEST_ID.test(s('request_id'))
        ? {
            message: Object.hasOwn(ERRORS, s('error'))
              ? ERRORS[s('error')]
              : 'Not done: the request was refused.',
            requestId: s('request_id'),
          }
        : null,
  };
}

/** Back to `back` (a path in the console's mode) after a refused action, with the code and this request's id. */
export function failedDeskAction(req: FastifyRequest, e: unknown, back: string) {
  if (!isClientError(e)) throw e;
  req.ctx.errorCode = e.code;
  const q = new URLSearchParams({ error: e.code, request_id: String(req.id) });
  return { url: `${back}&${q.toString()}`, statusCode: 303 };
}
