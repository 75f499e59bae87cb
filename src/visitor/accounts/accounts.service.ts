import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId, randomBase62 } from '../../common/ids';
import { Transactions } from '../../database/unit-of-work';
import { Actor, AuditService } from '../audit/audit.service';
import { isRole, Role } from '../platform/scopes';

/** How long an invitation link works. */
export const INVITATION_DAYS = 7;
/** The roles a person may be invited to or given on the Team page (support is Gatehouse's own staff). */
export const TEAM_ROLES: readonly Role[] = ['owner', 'admin', 'member'];
import { AccountRow, AccountsRepository, ActingAccess } from './accounts.repository';
import { OAuthModelsService } from '../../oauth/oauth-models.service';
import { ConsoleAccount, ConsoleCaller, toConsoleAccount, toConsoleCaller } from './console-caller';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';

export const SESSION_COOKIE = 'gh_session';
export const SESSION_HOURS = 12;
/** argon2id with the OWASP-recommended minimum (19 MiB, 2 passes, 1 lane). */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const hashToken = (t: string) => createHash('sha256').update(t).digest('base64url');

export interface AccountInput {
  email: string;
  name: string;
  role: string;
  password: string;
}

export interface SignedIn {
  token: string;
  expiresAt: Date;
  account: ConsoleCaller;
}

/** People who use the console: e-mail and password (argon2id), sessions in a secure cookie, roles. */
@Injectable()
export class AccountsService {
  /** Verifying against this when the e-mail is unknown keeps sign-in time the same either way. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly repo: AccountsRepository,
    private readonly models: OAuthModelsService,
    private readonly audit: AuditService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  /** The account, null when unknown. */
  async findById(id: string): Promise<ConsoleAccount | null> {
    const row = await this.repo.findById(id);
    return row && toConsoleAccount(row);
  }

  /** E-mail addresses of the organisation's Owners and Admins (whom a disabled webhook endpoint is reported to). */
  adminEmails(organisationId: string): Promise<string[]> {
    return this.repo.adminEmails(organisationId);
  }

  /** The account's current role and its organisation's access facts (an OAuth token acts with today's role). */
  actingAccess(accountId: string, organisationId: string): Promise<ActingAccess | null> {
    return this.repo.actingAccess(accountId, organisationId);
  }

  /**
   * Sets a new password (operator action: the demo command); audited. The person's other sessions end in the same
   * transaction (all of them, unless `keepSessionToken` names the session making the change), so a session
   * opened with the old password does not outlive it.
   */
  async resetPassword(
    account: ConsoleCaller,
    password: string,
    actor: Actor,
    keepSessionToken: string | null = null,
    request?: FastifyRequest,
  ): Promise<void> {
    if (password.length < 12)
      throw ApiError.validation([{ location: 'body.password', message: 'must be at least 12 characters' }]);
    const passwordHash = await hash(password, ARGON2);
    await this.tx.run(async (uow) => {
      const ended = await this.repo.changePassword(
        uow.manager,
        account.id,
        passwordHash,
        this.clock.now(),
        keepSessionToken && hashToken(keepSessionToken),
      );
      await this.models.endSessions(uow, account.id);
      await this.audit.record(
        {
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console_account.password_reset',
          actor,
          target: { type: 'console_account', id: account.id },
          data: { sessions_ended: ended },
          request,
        },
        uow.manager,
      );
    });
  }

  async create(
    organisationId: string,
    input: AccountInput,
    actor: Actor,
    request?: FastifyRequest,
  ): Promise<AccountRow> {
    const errors: FieldError[] = [];
    if (typeof input.email !== 'string' || !EMAIL.test(input.email))
      errors.push({ location: 'body.email', message: 'must be an e-mail address' });
    if (typeof input.name !== 'string' || input.name.trim() === '')
      errors.push({ location: 'body.name', message: 'is required' });
    if (!isRole(input.role))
      errors.push({ location: 'body.role', message: 'must be owner, admin, member or support' });
    if (typeof input.password !== 'string' || input.password.length < 12)
      errors.push({ location: 'body.password', message: 'must be at least 12 characters' });
    if (errors.length) throw ApiError.validation(errors);
    const row: AccountRow = {
      id: newId('acct'),
      organisation_id: organisationId,
      email: input.email.trim(),
      name: input.name.trim(),
      role: input.role as Role,
      password_hash: await hash(input.password, ARGON2),
      disabled_at: null,
      last_sign_in_at: null,
      created_at: this.clock.now(),
    };
    return this.tx.run(async (uow) => {
      if ((await this.repo.insert(uow.manager, row)) === 'email_taken')
        throw new ApiError('conflict', `A console account with the e-mail ${row.email} already exists.`, [
          { location: 'body.email', message: 'is already used' },
        ]);
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'console_account.created',
          actor,
          target: { type: 'console_account', id: row.id },
          data: { role: row.role },
          request,
        },
        uow.manager,
      );
      return row;
    });
  }

  /**
   * Whether `password` is the account's current password (the console's change-password form): the same check as
   * sign-in; a turned-off or unknown account never matches.
   */
  async passwordMatches(accountId: string, password: string): Promise<boolean> {
    return this.passwordOf(await this.repo.findById(accountId), password);
  }

  /** The one password check: argon2 verify, in the same time whether or not the account exists. */
  private async passwordOf(account: AccountRow | null, password: string): Promise<boolean> {
    const ok = account
      ? await verify(account.password_hash, password)
      : (await verify(await (this.dummyHash ??= hash(randomBase62(24), ARGON2)), password), false);
    return !!account && ok && !account.disabled_at;
  }

  async signIn(email: string, password: string, req: FastifyRequest): Promise<SignedIn> {
    const account = await this.repo.findByEmail(email);
    if (!account || !(await this.passwordOf(account, password))) {
      if (account)
        await this.audit.record({
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console.sign_in_failed',
          actor: { type: 'console_account', id: account.id },
          request: req,
        });
      throw new ApiError('unauthorized', 'The e-mail or password is not correct.');
    }
    const token = `gh_sess_${randomBase62(40)}`;
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000);
    await this.tx.run(async (uow) => {
      await this.repo.insertSession(uow.manager, hashToken(token), account.id, now, expiresAt);
      await this.repo.markSignedIn(uow.manager, account.id, now);
      await this.audit.record(
        {
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console.signed_in',
          actor: { type: 'console_account', id: account.id },
          request: req,
        },
        uow.manager,
      );
    });
    return { token, expiresAt, account: toConsoleCaller(account) };
  }

  async session(token: string): Promise<ConsoleCaller | null> {
    const row = await this.repo.sessionAccount(hashToken(token), this.clock.now());
    return row && toConsoleCaller(row);
  }

  async signOut(token: string): Promise<void> {
    await this.repo.revokeSession(hashToken(token), this.clock.now());
  }

  /** The organisation's people with console access (removed people left out), oldest first (`createdPage`). */
  async team(
    organisationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<(ConsoleAccount & { created_at: Date; last_sign_in_at: Date | null })[]> {
    return (await this.repo.team(organisationId, limit, after)).map((r) => ({
      ...toConsoleAccount(r),
      created_at: r.created_at,
      last_sign_in_at: r.last_sign_in_at,
    }));
  }

  /**
   * Invites a person: an account without a usable password (random, never shown) and a link to set one
   * (`invitationToken`), which the caller sends. Only an Owner may invite an Owner. Audited with the request.
   */
  async invite(
    by: ConsoleCaller,
    input: { email: string; name: string; role: string },
    request?: FastifyRequest,
  ): Promise<{ account: ConsoleAccount; token: string }> {
    if (isRole(input.role) && !TEAM_ROLES.includes(input.role))
      throw ApiError.validation([{ location: 'body.role', message: 'must be owner, admin or member' }]);
    if (input.role === 'owner' && by.role !== 'owner')
      throw new ApiError('forbidden', 'Only an Owner may make someone an Owner.');
    const row = await this.create(
      by.organisation_id,
      { ...input, password: randomBase62(32) },
      { type: 'console_account', id: by.id },
      request,
    );
    return { account: toConsoleAccount(row), token: this.invitationToken(row) };
  }

  /** A link token that sets the first password: bound to the current password hash, so it works once. */
  private invitationToken(
    a: AccountRow,
    expires = this.clock.now().getTime() + INVITATION_DAYS * 86_400_000,
  ) {
    const exp = Math.floor(expires / 1000);
    return `${a.id}.${exp}.${this.invitationMac(a, exp)}`;
  }

  private invitationMac(a: AccountRow, exp: number): string {
    return createHmac('sha256', this.config.secrets.sessionSecret)
      .update(`invitation|${a.id}|${exp}|${a.password_hash}`)
      .digest('base64url');
  }

  /** The invited person of a link token still valid (not used, not expired, account not removed), else null. */
  async invited(token: string): Promise<ConsoleCaller | null> {
    const [id, exp, mac] = typeof token === 'string' ? token.split('.') : [];
    if (!id || !/^\d+$/.test(exp ?? '') || !mac) return null;
    if (Number(exp) * 1000 <= this.clock.now().getTime()) return null;
    const row = await this.repo.findById(id);
    if (!row || row.disabled_at) return null;
    const want = Buffer.from(this.invitationMac(row, Number(exp)));
    const got = Buffer.from(mac);
    return want.length === got.length && timingSafeEqual(want, got) ? toConsoleCaller(row) : null;
  }

  /** Sets the invited person's first password from the link (which then stops working); audited. */
  async acceptInvitation(token: string, password: string, request?: FastifyRequest): Promise<ConsoleCaller> {
    const person = await this.invited(token);
    if (!person)
      throw new ApiError('not_found', 'This invitation link is not valid any more; ask for a new one.');
    await this.resetPassword(person, password, { type: 'console_account', id: person.id }, null, request);
    return person;
  }

  /**
   * Gives a person another role. Only an Owner may give or take the Owner role; the last Owner keeps it (an
   * organisation always has an Owner). Audited with the request.
   */
  async changeRole(
    by: ConsoleCaller,
    accountId: string,
    role: string,
    request?: FastifyRequest,
  ): Promise<void> {
    if (!isRole(role) || !TEAM_ROLES.includes(role))
      throw ApiError.validation([{ location: 'body.role', message: 'must be owner, admin or member' }]);
    await this.tx.run(async (uow) => {
      const { account, owners } = await this.repo.lockForRoleChange(
        uow.manager,
        by.organisation_id,
        accountId,
      );
      if (!account) throw ApiError.notFound('The person');
      if (account.role === role) return;
      if ((account.role === 'owner' || role === 'owner') && by.role !== 'owner')
        throw new ApiError('forbidden', 'Only an Owner may give or take the Owner role.');
      if (account.role === 'owner' && owners.length <= 1)
        throw new ApiError(
          'invalid_state',
          `${account.name} is the last Owner: make someone else an Owner first, then change this role.`,
        );
      await this.repo.setRole(uow.manager, account.id, role);
      await this.audit.record(
        {
          organisationId: by.organisation_id,
          livemode: null,
          action: 'console_account.role_changed',
          actor: { type: 'console_account', id: by.id },
          target: { type: 'console_account', id: account.id },
          data: { from: account.role, to: role },
          request,
        },
        uow.manager,
      );
    });
  }

  /**
   * Removes a person's console access: the account is turned off and its sessions end (OAuth tokens acting for
   * it stop with it). The last Owner cannot be removed; only an Owner may remove an Owner. Audited.
   */
  async remove(by: ConsoleCaller, accountId: string, request?: FastifyRequest): Promise<void> {
    await this.tx.run(async (uow) => {
      const { account, owners } = await this.repo.lockForRoleChange(
        uow.manager,
        by.organisation_id,
        accountId,
      );
      if (!account) throw ApiError.notFound('The person');
      if (account.role === 'owner' && by.role !== 'owner')
        throw new ApiError('forbidden', 'Only an Owner may remove an Owner.');
      if (account.role === 'owner' && owners.length <= 1)
        throw new ApiError(
          'invalid_state',
          `${account.name} is the last Owner and cannot be removed: make someone else an Owner first.`,
        );
      await this.repo.disable(uow.manager, account.id, this.clock.now());
      await this.models.endSessions(uow, account.id);
      await this.audit.record(
        {
          organisationId: by.organisation_id,
          livemode: null,
          action: 'console_account.removed',
          actor: { type: 'console_account', id: by.id },
          target: { type: 'console_account', id: account.id },
          data: { role: account.role, email: account.email },
          request,
        },
        uow.manager,
      );
    });
  }
}
