import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { CheckCsrf, CsrfToken, Page } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService, INVITATION_DAYS, TEAM_ROLES } from '../../visitor/accounts/accounts.service';
import { MessagesService } from '../../visitor/messages/messages.service';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { ConsolePublic } from '../console-access';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { formError } from '../keys/console-forms';

const PATH = '/console/team';
const ROLE_WORDS: Record<string, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  support: 'Support',
};
const NOTICES: Record<string, string> = {
  invited: 'The invitation is sent. The person sets a password from the link in the e-mail, then signs in.',
  role: 'The role is changed.',
  removed: 'The person no longer has console access; their sessions have ended.',
};

/**
 * The Team page (`/console/team`, issue 31 page 3), for Owners and Admins: the people with console access and
 * their roles, inviting by e-mail (the invitation goes out as a message: in development it lands in the outbox),
 * changing a role, removing a person. The last Owner can be neither demoted nor removed (`AccountsService`).
 */
@ApiExcludeController()
@Controller('console/team')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleTeamPageController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly messages: MessagesService,
    private readonly cursors: CursorCodecProvider,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Get()
  @ConsolePage('console-team')
  show(
    @CurrentAccount() a: ConsoleCaller,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, string | undefined>,
  ) {
    return this.view(a, csrf, query, {
      notice: query.notice ? (NOTICES[query.notice] ?? null) : null,
      values: { email: '', name: '', role: 'member' },
    });
  }

  @Post('invite')
  @ConsolePage('console-team')
  @CheckCsrf()
  async invite(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Req() req: FastifyRequest,
    @Body() form: Record<string, string | undefined>,
  ) {
    const values = { email: form.email ?? '', name: form.name ?? '', role: form.role ?? '' };
    try {
      const { account, token } = await this.accounts.invite(a, values, req);
      const link = `${this.config.appUrl}/console/invitation?token=${encodeURIComponent(token)}`;
      // Organisation-wide, so sent as a live message: a configured e-mail provider sends it; in development the
      // log provider keeps it in the outbox.
      await this.messages.send({ organisationId: t.organisationId, livemode: true }, ['email'], {
        to: { email: account.email },
        subject: `${a.name} invited you to ${t.organisationName} on Gatehouse`,
        body:
          `${a.name} invited you to the Gatehouse console of ${t.organisationName} as ${ROLE_WORDS[account.role]}.\n\n` +
          `Set your password here (the link works once, for ${INVITATION_DAYS} days):\n${link}\n`,
        relatedId: account.id,
      });
      return this.view(
        a,
        csrf,
        {},
        { notice: NOTICES.invited, values: { email: '', name: '', role: 'member' } },
      );
    } catch (e) {
      return this.view(a, csrf, {}, { error: formError(e, req), values });
    }
  }

  @Post(':account_id/role')
  @PostedForm()
  async changeRole(
    @CurrentAccount() a: ConsoleCaller,
    @Req() req: FastifyRequest,
    @Param('account_id') id: string,
    @Body() form: Record<string, string | undefined>,
  ) {
    try {
      await this.accounts.changeRole(a, id, form.role ?? '', req);
      return { url: `${PATH}?notice=role`, statusCode: 303 };
    } catch (e) {
      const err = formError(e, req);
      return {
        url: `${PATH}?${new URLSearchParams({ error: err.message, rid: err.requestId })}`,
        statusCode: 303,
      };
    }
  }

  /** The confirmation step of removing a person (works without JavaScript). */
  @Get(':account_id/remove')
  @ConsolePage('console-confirm')
  async confirmRemove(
    @CurrentAccount() a: ConsoleCaller,
    @CsrfToken() csrf: string,
    @Param('account_id') id: string,
  ) {
    const person = await this.accounts.findById(id);
    if (!person || person.organisation_id !== a.organisation_id || person.disabled_at)
      throw ApiError.notFound('The person');
    return {
      title: `Remove ${person.name}?`,
      question: `${person.name} (${person.email}) will no longer be able to sign in to the console; their open sessions end now.`,
      action: `${PATH}/${encodeURIComponent(id)}/remove`,
      confirmLabel: 'Remove',
      cancel: PATH,
      csrf,
    };
  }

  @Post(':account_id/remove')
  @PostedForm()
  async remove(
    @CurrentAccount() a: ConsoleCaller,
    @Req() req: FastifyRequest,
    @Param('account_id') id: string,
  ) {
    try {
      await this.accounts.remove(a, id, req);
      return { url: `${PATH}?notice=removed`, statusCode: 303 };
    } catch (e) {
      const err = formError(e, req);
      return {
        url: `${PATH}?${new URLSearchParams({ error: err.message, rid: err.requestId })}`,
        statusCode: 303,
      };
    }
  }

  private async view(
    a: ConsoleCaller,
    csrf: string,
    query: Record<string, string | undefined>,
    extra: {
      values: { email: string; name: string; role: string };
      notice?: string | null;
      error?: { message: string; requestId: string } | null;
    },
  ) {
    const tenant = { organisationId: a.organisation_id, livemode: true };
    const page = await this.cursors.codec.createdPage(
      'console-team',
      tenant,
      { cursor: query.cursor || undefined, limit: 25 },
      (limit, after) => this.accounts.team(a.organisation_id, limit, after),
      (p) => p,
    );
    // A refused action comes back here (post, redirect, get) with its message and request id in the URL.
    const error =
      extra.error ??
      (query.error
        ? { message: query.error.slice(0, 300), requestId: (query.rid ?? '').slice(0, 80) }
        : null);
    const roles = TEAM_ROLES.filter((r) => r !== 'owner' || a.role === 'owner');
    return {
      title: 'Team',
      csrf,
      notice: extra.notice ?? null,
      error,
      values: extra.values,
      roles: roles.map((r) => ({ role: r, words: ROLE_WORDS[r] })),
      people: page.data.map((p) => ({
        id: p.id,
        name: p.name,
        email: p.email,
        role: p.role,
        roleWords: ROLE_WORDS[p.role] ?? p.role,
        you: p.id === a.id,
        since: when(p.created_at),
        lastSignIn: p.last_sign_in_at ? when(p.last_sign_in_at) : 'not yet',
        roleAction: `${PATH}/${encodeURIComponent(p.id)}/role`,
        remove: `${PATH}/${encodeURIComponent(p.id)}/remove`,
        // Admins cannot change Owners (only an Owner may give or take that role).
        editable: p.role !== 'support' && (p.role !== 'owner' || a.role === 'owner'),
      })),
      pager: pagerLinks(PATH, query, page),
    };
  }
}

/**
 * The invitation link (`/console/invitation?token=…`): an invited person sets their first password, then signs
 * in. Public (the person has no session yet); the link works once and expires.
 */
@ApiExcludeController()
@ConsolePublic()
@Controller('console/invitation')
export class ConsoleInvitationPageController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @Page('console-invitation')
  async show(@CsrfToken() csrf: string, @Query('token') token?: string) {
    const person = token ? await this.accounts.invited(token) : null;
    if (!person) throw ApiError.notFound('The invitation');
    return { title: 'Set your password', csrf, token, email: person.email, error: null };
  }

  @Post()
  @Page('console-invitation')
  @CheckCsrf()
  async accept(
    @CsrfToken() csrf: string,
    @Req() req: FastifyRequest,
    @Body() form: Record<string, string | undefined>,
  ) {
    const token = form.token ?? '';
    const person = await this.accounts.invited(token);
    if (!person) throw ApiError.notFound('The invitation');
    if ((form.password ?? '') !== (form.password_again ?? ''))
      return {
        title: 'Set your password',
        csrf,
        token,
        email: person.email,
        error: 'The two passwords differ.',
      };
    try {
      await this.accounts.acceptInvitation(token, form.password ?? '', req);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'validation_failed') throw e;
      return {
        title: 'Set your password',
        csrf,
        token,
        email: person.email,
        error: 'The password must be at least 12 characters.',
      };
    }
    return { title: 'Password set', csrf, token: null, email: person.email, done: true, error: null };
  }
}
