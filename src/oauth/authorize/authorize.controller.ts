import { Body, Controller, Get, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken, Page } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import { SignInLimitGuard } from '../../visitor/accounts/sign-in-limit.guard';
import { AuthorizationFlowService, AuthorizeView } from './authorization-flow.service';

/** What a failed step says when the page is shown again (a code in the query: post, redirect, get). */
const NOTICES: Record<string, string> = {
  'sign-in': 'The e-mail or password is not correct.',
  locked: 'Too many wrong passwords for this address. Wait a few minutes and try again.',
  'no-scope': 'Tick at least one permission, or choose Deny.',
  'not-approved': 'An Owner or Admin must approve this app for your organisation first.',
};

const TITLES: Record<AuthorizeView['page'], string> = {
  'sign-in': 'Sign in to connect an app',
  consent: 'Connect an app',
  waiting: "Waiting for your admin's approval",
  denied: 'This app is not allowed',
};

type Form = Record<string, string | undefined>;

/**
 * The authorization page on APP_URL (`/oauth/interaction/:uid`, where the engine sends the browser): HTML forms
 * that work without JavaScript, built on the page framework (templates, CSRF). A form post moves the engine's
 * interaction on and answers `303 See Other` — to the engine's resume URL (which ends at the app's redirect URI),
 * or back to the page with a notice.
 */
@ApiExcludeController()
@Controller('oauth/interaction')
export class AuthorizeController {
  constructor(private readonly flow: AuthorizationFlowService) {}

  @Get(':uid')
  @Page('oauth-authorize')
  async show(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CsrfToken() csrf: string,
    @Query('notice') notice?: string,
  ) {
    const view = await this.flow.view(req, reply);
    // The forms of this page end, through the engine's redirects, at the app's redirect URI: the browser checks
    // CSP form-action along that chain, so the app's origin is allowed beside this site.
    const csp = reply.getHeader('content-security-policy');
    if (typeof csp === 'string' && view.app.redirectUri)
      void reply.header(
        'Content-Security-Policy',
        csp.replace("form-action 'self'", `form-action 'self' ${new URL(view.app.redirectUri).origin}`),
      );
    return {
      ...view,
      title: TITLES[view.page],
      csrf,
      notice: notice ? (NOTICES[notice] ?? null) : null,
      action: (step: string) => `/oauth/interaction/${encodeURIComponent(view.uid)}/${step}`,
    };
  }

  @Post(':uid/sign-in')
  @PostedForm()
  @UseGuards(SignInLimitGuard)
  async signIn(
    @Param('uid') uid: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form: Form,
  ) {
    try {
      return {
        url: await this.flow.signIn(req, reply, form.email ?? '', form.password ?? ''),
        statusCode: 303,
      };
    } catch (e) {
      if (e instanceof ApiError && e.code === 'unauthorized') return back(uid, 'sign-in');
      if (e instanceof ApiError && e.code === 'rate_limited') return back(uid, 'locked');
      throw e;
    }
  }

  @Post(':uid/consent')
  @PostedForm()
  async consent(
    @Param('uid') uid: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form: Form,
  ) {
    // Each scope is its own checkbox field (`scope:<name>`): the framework's form parser keeps one value a name.
    const scopes = Object.keys(form)
      .filter((k) => k.startsWith('scope:') && form[k] === 'on')
      .map((k) => k.slice('scope:'.length));
    try {
      const url = await this.flow.consent(req, reply, {
        allow: form.decision === 'allow',
        scopes,
        mode: form.mode ?? 'live',
      });
      return { url, statusCode: 303 };
    } catch (e) {
      if (e instanceof ApiError && e.code === 'validation_failed') return back(uid, 'no-scope');
      if (e instanceof ApiError && e.code === 'forbidden') return back(uid, 'not-approved');
      throw e;
    }
  }

  @Post(':uid/abort')
  @PostedForm()
  async abort(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return { url: await this.flow.deny(req, reply, 'The person cancelled the connection.'), statusCode: 303 };
  }
}

const back = (uid: string, notice: string) => ({
  url: `/oauth/interaction/${encodeURIComponent(uid)}?notice=${notice}`,
  statusCode: 303,
});
