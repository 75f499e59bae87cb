import { Injectable, Logger } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { isTimestamp } from '../../common/validation/timestamp';
import { Transactions } from '../../database/unit-of-work';
import { OrganisationsService } from '../organisations/organisations.service';
import { generateKey, hashKey, KEY_PREFIXES, keyMatches, KeyKind, parseKey } from './api-key-format';
import { ApiKeyRow, ApiKeysRepository } from './api-keys.repository';
import { Actor, AuditService } from '../audit/audit.service';
import type { Credential, CredentialResolver } from '../platform/credential';
import { PLAN_RULES } from '../platform/plans';
import { CUSTOM_SCOPE_PATTERN, isScope, PUBLISHABLE_SCOPES, Scope } from '../platform/scopes';

export class ApiKeyResponse {
  @ApiProperty({ example: 'key_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['secret', 'publishable'] }) kind: string;
  @ApiProperty() livemode: boolean;
  @ApiProperty({ description: 'Shown form of the key: prefix, lookup part and last four characters' })
  redacted: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'After this moment the key is `unauthorized`; null: until revoked',
  })
  expires_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ description: 'The full key. Shown only in this response; store it now.' }) key: string;
}

export function toApiKeyResponse(k: ApiKeyRow): ApiKeyResponse {
  const prefix = `svc_${k.kind === 'secret' ? 'sk' : 'pk'}_${k.livemode ? 'live' : 'test'}_`;
  return {
    id: k.id,
    name: k.name,
    kind: k.kind,
    livemode: k.livemode,
    redacted: `${prefix}${k.lookup}…${k.last4}`,
    scopes: k.scopes,
    created_at: new Date(k.created_at).toISOString(),
    last_used_at: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
    expires_at: k.expires_at ? new Date(k.expires_at).toISOString() : null,
    revoked_at: k.revoked_at ? new Date(k.revoked_at).toISOString() : null,
  };
}

export interface CreateKeyInput {
  name: string;
  kind: string;
  mode: string;
  scopes: string[];
  /** Optional RFC 3339 moment after which the key stops working. */
  expires_at?: string | null;
}

/** API keys: created with fixed name, kind, mode and scopes; shown once; stored as a SHA-256 hash + lookup. */
@Injectable()
export class ApiKeysService implements CredentialResolver {
  readonly prefixes = KEY_PREFIXES;
  private readonly logger = new Logger('ApiKeys');
  /** When each key's use was last written (last_used_at is kept to the minute; first use per day is audited). */
  private readonly lastTouch = new Map<string, number>();

  constructor(
    private readonly repo: ApiKeysRepository,
    private readonly orgs: OrganisationsService,
    private readonly audit: AuditService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  async create(
    organisationId: string,
    input: CreateKeyInput,
    actor: Actor,
    at = 'body',
    /** The console request that asked (its id and IP go into the audit trail). */
    request?: FastifyRequest,
  ): Promise<CreatedApiKeyResponse> {
    const org = await this.orgs.findOrganisation(organisationId);
    if (!org) throw ApiError.notFound('The organisation');
    const errors: FieldError[] = [];
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 100)
      errors.push({ location: `${at}.name`, message: 'is required (at most 100 characters)' });
    if (input.kind !== 'secret' && input.kind !== 'publishable')
      errors.push({ location: `${at}.kind`, message: 'must be secret or publishable' });
    if (input.mode !== 'live' && input.mode !== 'test')
      errors.push({ location: `${at}.mode`, message: 'must be live or test' });
    if (!Array.isArray(input.scopes) || input.scopes.length === 0)
      errors.push({ location: `${at}.scopes`, message: 'must list at least one scope' });
    const now = this.clock.now();
    let expiresAt: Date | null = null;
    if (input.expires_at !== undefined && input.expires_at !== null) {
      if (!isTimestamp(input.expires_at))
        errors.push({
          location: `${at}.expires_at`,
          message: 'must be an RFC 3339 timestamp such as 2026-11-22T09:30:00Z',
        });
      else if ((expiresAt = new Date(input.expires_at)) <= now)
        errors.push({ location: `${at}.expires_at`, message: 'must be in the future' });
    }
    const custom = await this.repo.customScopeNames(organisationId);
    let needsEnterprise = false;
    for (const [i, s] of (Array.isArray(input.scopes) ? input.scopes : []).entries()) {
      if (typeof s === 'string' && CUSTOM_SCOPE_PATTERN.test(s)) {
        needsEnterprise = true;
        if (!custom.has(s))
          errors.push({ location: `${at}.scopes.${i}`, message: `unknown custom scope ${s}` });
      } else if (!isScope(s))
        errors.push({ location: `${at}.scopes.${i}`, message: `unknown scope ${String(s)}` });
      else if (input.kind === 'publishable' && !PUBLISHABLE_SCOPES.includes(s as Scope))
        errors.push({
          location: `${at}.scopes.${i}`,
          message: `a publishable key may hold only ${PUBLISHABLE_SCOPES.join(', ')}`,
        });
    }
    if (errors.length) throw ApiError.validation(errors);
    if (needsEnterprise && !PLAN_RULES[org.plan].customScopes)
      throw new ApiError('plan_required', 'Custom scopes need the Enterprise plan.');

    const kind = input.kind as KeyKind;
    const livemode = input.mode === 'live';
    const { key, lookup, last4 } = generateKey(kind, livemode);
    const row: ApiKeyRow = {
      id: newId('key'),
      organisation_id: organisationId,
      livemode,
      kind,
      name: input.name.trim(),
      lookup,
      secret_hash: hashKey(key),
      last4,
      scopes: [...new Set(input.scopes)],
      created_by: `${actor.type}:${actor.id ?? ''}`,
      created_at: now,
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
    };
    await this.tx.run(async (uow) => {
      await this.repo.insert(uow.manager, row);
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'api_key.created',
          actor,
          target: { type: 'api_key', id: row.id },
          data: {
            name: row.name,
            kind,
            mode: input.mode,
            scopes: row.scopes,
            expires_at: expiresAt?.toISOString() ?? null,
          },
          request,
        },
        uow.manager,
      );
    });
    return { ...toApiKeyResponse(row), key };
  }

  /**
   * Defines (or redefines) an Enterprise custom scope: a named bundle of built-in scopes. Keys name it at
   * creation; the guard chain expands it to its bundle while the organisation is on Enterprise. An admin action,
   * audited.
   */
  async defineCustomScope(
    organisationId: string,
    input: { name: string; grants: string[]; description?: string },
    actor: Actor,
    at = 'body',
  ): Promise<{ organisation_id: string; name: string; grants: string[]; description: string }> {
    const org = await this.orgs.findOrganisation(organisationId);
    if (!org) throw ApiError.notFound('The organisation');
    const errors: FieldError[] = [];
    if (typeof input.name !== 'string' || !CUSTOM_SCOPE_PATTERN.test(input.name))
      errors.push({
        location: `${at}.name`,
        message:
          'must be custom: and a lowercase name (letters, digits, underscores), e.g. custom:front_desk',
      });
    if (!Array.isArray(input.grants) || input.grants.length === 0)
      errors.push({ location: `${at}.grants`, message: 'must list at least one built-in scope' });
    for (const [i, g] of (Array.isArray(input.grants) ? input.grants : []).entries())
      if (!isScope(g)) errors.push({ location: `${at}.grants.${i}`, message: `unknown scope ${String(g)}` });
    if (errors.length) throw ApiError.validation(errors);
    if (!PLAN_RULES[org.plan].customScopes)
      throw new ApiError(
        'plan_required',
        `Custom scopes need the Enterprise plan; this organisation is on ${org.plan}.`,
      );
    const grants = [...new Set(input.grants)];
    const description = input.description ?? '';
    await this.tx.run(async (uow) => {
      await this.repo.upsertCustomScope(
        uow.manager,
        organisationId,
        input.name,
        description,
        grants,
        this.clock.now(),
      );
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'custom_scope.defined',
          actor,
          target: { type: 'custom_scope', id: input.name },
          data: { grants, description },
        },
        uow.manager,
      );
    });
    return { organisation_id: organisationId, name: input.name, grants, description };
  }

  async list(
    organisationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<ApiKeyRow[]> {
    return this.repo.list(organisationId, limit, after);
  }

  /** One key of the organisation (the console's revoke confirmation), null when unknown. */
  async get(organisationId: string, id: string): Promise<ApiKeyResponse | null> {
    const k = await this.repo.find(organisationId, id);
    return k && toApiKeyResponse(k);
  }

  /** Immediate and irreversible; revoking a revoked key is `invalid_state`. */
  async revoke(
    organisationId: string,
    id: string,
    actor: Actor,
    request?: FastifyRequest,
  ): Promise<ApiKeyResponse> {
    return this.tx.run(async (uow) => {
      const key = await this.repo.find(organisationId, id, uow.manager);
      if (!key) throw ApiError.notFound('The API key');
      const now = this.clock.now();
      if (!(await this.repo.revoke(uow.manager, organisationId, id, now)))
        throw new ApiError('invalid_state', 'The API key is already revoked.');
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'api_key.revoked',
          actor,
          target: { type: 'api_key', id },
          request,
        },
        uow.manager,
      );
      return toApiKeyResponse({ ...key, revoked_at: now });
    });
  }

  /** CredentialResolver: an API key in `Authorization: Bearer`. */
  async resolve(token: string, req?: FastifyRequest): Promise<Credential | 'revoked' | null> {
    const parsed = parseKey(token);
    if (!parsed) return null;
    const k = await this.repo.findByLookup(parsed.lookup);
    if (!k || !keyMatches(token, k.secret_hash)) return null;
    const now = this.clock.now();
    if (k.revoked_at || (k.expires_at && new Date(k.expires_at) <= now)) return 'revoked';
    await this.noteUse(k.id, k.organisation_id, k.livemode, now, req);
    const scopes = new Set<string>(k.scopes.filter((s) => !s.startsWith('custom:')));
    for (const g of k.custom_grants ?? []) scopes.add(g);
    return {
      kind: 'api_key',
      id: k.id,
      livemode: k.livemode,
      publishable: k.kind === 'publishable',
      scopes,
      actingRole: null,
      actingAccountId: null,
      organisation: {
        id: k.organisation_id,
        plan: k.plan,
        overrides: {
          ratePerMinute: k.rate_limit_per_minute,
          historyDays: k.history_days,
          auditDays: k.audit_days,
        },
        ipAllowList: k.ip_allow_list,
        referenceVersion: k.reference_version,
      },
    };
  }

  /** `last_used_at` to the minute; the first use of a key each (UTC) day goes into the audit trail. */
  private async noteUse(
    keyId: string,
    organisationId: string,
    livemode: boolean,
    now: Date,
    req?: FastifyRequest,
  ): Promise<void> {
    const last = this.lastTouch.get(keyId);
    if (last !== undefined && now.getTime() - last < 60_000) return;
    this.lastTouch.set(keyId, now.getTime());
    try {
      if (await this.repo.touch(keyId, now, now.toISOString().slice(0, 10)))
        await this.audit.record({
          organisationId,
          livemode,
          action: 'api_key.used',
          actor: { type: 'api_key', id: keyId },
          target: { type: 'api_key', id: keyId },
          data: { day: now.toISOString().slice(0, 10) },
          request: req,
        });
    } catch (e) {
      this.logger.warn(`could not record use of ${keyId}: ${(e as Error).message}`);
    }
  }
}
