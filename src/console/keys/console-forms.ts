import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { AccountsService } from '../../visitor/accounts/accounts.service';

/** Codes a console form shows next to the form (the person can fix them); anything else is the error page. */
const FORM_CODES = new Set([
  'validation_failed',
  'plan_required',
  'conflict',
  'invalid_state',
  'not_found',
  'forbidden',
]);

/**
 * A refused form action as `console-flash`'s `error` (`{message, requestId}`): the problem's detail and each
 * field error in words, with the request id to quote to support. Errors that are not the person's to fix are
 * thrown on (the HTML error page, which carries the request id too).
 */
export function formError(e: unknown, req: FastifyRequest): { message: string; requestId: string } {
  if (!(e instanceof ApiError) || !FORM_CODES.has(e.code)) throw e;
  const fields = e.errors.map((x) => `${x.location.replace(/^body\./, '')} ${x.message}`);
  return {
    message: fields.length ? `Not saved: ${fields.join('; ')}.` : e.detail,
    requestId: String(req.id),
  };
}

/** An actor as people read it: a console account's name, else the actor as stored (`operator:cli`). */
export async function nameOfActor(actor: string, accounts: AccountsService): Promise<string> {
  const [type, id] = actor.split(':');
  if (type === 'console_account' && id) return (await accounts.findById(id))?.name ?? id;
  return actor;
}
