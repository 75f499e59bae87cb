import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseForm } from 'node:querystring';
import { ApiError } from '../../common/errors/api-error';
import { OAUTH_ROUTES } from '../oauth-server';
import { AuthorizationFlowService, AuthorizeView } from './authorization-flow.service';
import { renderAuthorizePage } from './authorize.render';

type Form = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';
const many = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * The authorization page on APP_URL (`/oauth/interaction/:uid`): server-rendered HTML forms that work without
 * JavaScript. Each POST moves the engine's interaction on and answers `303 See Other` to where the browser goes
 * next (the engine's resume URL, which ends at the app's redirect URI).
 */
@Injectable()
export class AuthorizePages {
  constructor(private readonly flow: AuthorizationFlowService) {}

  /** Queued, not awaited (see OAuthServer.mount). */
  mount(fastify: FastifyInstance): void {
    void fastify.register(async (instance) => {
      instance.removeAllContentTypeParsers();
      instance.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 16 * 1024 },
        (_req, body, done) => done(null, parseForm(body as string)),
      );
      const base = `${OAUTH_ROUTES.interaction}/:uid`;
      instance.get(base, (req, reply) => this.show(req, reply));
      instance.post(`${base}/sign-in`, (req, reply) => this.signIn(req, reply));
      instance.post(`${base}/consent`, (req, reply) => this.consent(req, reply));
      instance.post(`${base}/abort`, (req, reply) => this.abort(req, reply));
    });
  }

  private async show(req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) {
    let view: AuthorizeView;
    try {
      view = await this.flow.view(req, reply, error);
    } catch (e) {
      return this.gone(reply, e);
    }
    return reply.status(status).type('text/html; charset=utf-8').send(renderAuthorizePage(view));
  }

  private async signIn(req: FastifyRequest, reply: FastifyReply) {
    const form = (req.body ?? {}) as Form;
    try {
      const next = await this.flow.signIn(req, reply, one(form.email), one(form.password));
      return reply.redirect(next, 303);
    } catch (e) {
      if (e instanceof ApiError && (e.code === 'unauthorized' || e.code === 'rate_limited'))
        return this.show(req, reply, e.detail, e.code === 'unauthorized' ? 401 : 429);
      return this.gone(reply, e);
    }
  }

  private async consent(req: FastifyRequest, reply: FastifyReply) {
    const form = (req.body ?? {}) as Form;
    try {
      const next = await this.flow.consent(req, reply, {
        allow: one(form.decision) === 'allow',
        scopes: many(form.scope),
        mode: one(form.mode),
      });
      return reply.redirect(next, 303);
    } catch (e) {
      if (e instanceof ApiError && (e.code === 'validation_failed' || e.code === 'forbidden'))
        return this.show(req, reply, e.detail, 422);
      return this.gone(reply, e);
    }
  }

  private async abort(req: FastifyRequest, reply: FastifyReply) {
    try {
      return reply.redirect(await this.flow.deny(req, reply, 'The person cancelled the connection.'), 303);
    } catch (e) {
      return this.gone(reply, e);
    }
  }

  private gone(reply: FastifyReply, e: unknown) {
    if (!(e instanceof ApiError)) throw e;
    return reply
      .status(e.code === 'not_found' ? 404 : 400)
      .type('text/html; charset=utf-8')
      .send(renderAuthorizePage({ page: 'error', message: e.detail }));
  }
}
