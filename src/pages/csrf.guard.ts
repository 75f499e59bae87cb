import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/api-error';

const refused = () =>
  new ApiError(
    'forbidden',
    'This form has expired or did not come from this site. Go back, reload the page and try again.',
  );

/**
 * Checks the CSRF token of a form post (`@CheckCsrf()`) with `@fastify/csrf-protection`: the `_csrf` field (or
 * `x-csrf-token` header) must match the secret in the signed `gh_csrf` cookie. The plugin's check is a Fastify hook
 * that answers a failure itself (`reply.send(error)`); here it is given a stand-in reply that turns that answer
 * into `forbidden`, which a page route renders as the 403 page.
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    return new Promise((resolve, reject) => {
      const standIn = {
        unsignCookie: (value: string) => reply.unsignCookie(value),
        send: () => reject(refused()),
      };
      req.server.csrfProtection(req, standIn as unknown as FastifyReply, () => resolve(true));
    });
  }
}
