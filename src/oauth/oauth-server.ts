import { Injectable, Logger } from '@nestjs/common';
import { createPrivateKey } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, Provider } from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { Clock } from '../common/clock';
import { pathOf } from '../common/http/surface';
import { badCharAt } from '../common/errors/validation.pipe';
import { randomBase62 } from '../common/ids';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { AccountsService } from '../visitor/accounts/accounts.service';
import { ConnectedAppsService } from '../visitor/connected-apps/connected-apps.service';
import { DEFAULT_SCOPES, isScope, SCOPES } from '../visitor/platform/scopes';
import { PROTECTED_RESOURCES, resourceUrl } from '../common/errors/bearer-challenge';
import {
  ACCESS_TOKEN_PREFIX,
  AUTHORIZATION_CODE_PREFIX,
  REFRESH_TOKEN_PREFIX,
} from '../visitor/connected-apps/token-hash';
import { ClientsRepository } from './clients/clients.repository';
import { metadataDocumentFetch } from './clients/metadata-document-fetch';
import { adapterFactory } from './oauth-adapter';
import { OAuthModelRepository } from './oauth-model.repository';
import { redirectUriProblem } from './redirect-uris';
import { renderOAuthError } from './pages/oauth-error.page';

/** Lifetimes the spec leaves open (docs/decisions.md, "OAuth 2.1 authorization server"). */
export const LIFETIMES = {
  accessToken: 3600,
  authorizationCode: 60,
  refreshToken: 30 * 86_400,
  grant: 365 * 86_400,
  interaction: 3600,
  session: 12 * 3600,
} as const;

/** Metadata keys the server really implements (RFC 8414); OpenID-only keys the engine adds are dropped. */
const METADATA_KEYS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'registration_endpoint',
  'revocation_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'authorization_response_iss_parameter_supported',
  'client_id_metadata_document_supported',
  'service_documentation',
] as const;

/** The paths of the server (issuer AUTH_URL, no path) and the authorization page (APP_URL). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  interaction: '/oauth/interaction',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** The engine's own routes (each with what is under it): it answers every request there, errors included. */
const ENGINE_PATHS = [
  OAUTH_ROUTES.authorization,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.registration,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.metadata,
];

/**
 * Whether a URL is the engine's, so the app's request-wide checks (a `%00` in the URL) leave it to the engine,
 * which answers in the OAuth format; what it would store or look up is checked by its adapter.
 */
export function isEngineUrl(url: string): boolean {
  const path = pathOf(url);
  return ENGINE_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The extra-metadata hook's name (never a client's property: removed when it runs). */
const CLIENT_RULES = 'urn:gatehouse:client-rules';
/** Where a client's registered `scope` is kept (the engine checks `scope` against OpenID scopes only). */
const REGISTERED_SCOPE = 'urn:gatehouse:scope';

/**
 * The rules every client's metadata meets, however it registered (dynamic registration, a Client ID Metadata
 * Document, the console), before the engine's own checks run; a refusal is the OAuth error naming what is wrong:
 * - no NUL or lone surrogate anywhere (what no stored string may hold): `invalid_client_metadata`;
 * - each redirect URI https or loopback http: `invalid_redirect_uri` (a value that is not an array is left to the
 *   engine: "redirect_uris must be an array");
 * - `scope`, when given, only scopes this server supports (RFC 7591 §2): `invalid_client_metadata` naming the
 *   others. It is kept as `REGISTERED_SCOPE` (the engine would compare it with its OpenID scopes) and returned as
 *   `scope`; it limits nothing (docs/decisions.md: the consent and the person's role do);
 * - a metadata document (its `client_id` is its https URL) names the app: `client_name`, a non-empty string.
 */
function checkedClientMetadata(metadata: Record<string, unknown>): void {
  delete metadata[CLIENT_RULES];
  const bad = badCharAt(metadata);
  if (bad) throw new errors.InvalidClientMetadata(`${bad.location.replace(/^body\./, '')} ${bad.message}`);
  if (Array.isArray(metadata.redirect_uris))
    for (const uri of metadata.redirect_uris as unknown[]) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new errors.InvalidRedirectUri(`redirect_uris ${String(uri)} ${problem}`);
    }
  // `scope` as sent, or as stored by an earlier registration (a stored client is checked again when loaded).
  const scope = metadata.scope ?? metadata[REGISTERED_SCOPE];
  delete metadata.scope;
  delete metadata[REGISTERED_SCOPE];
  if (scope !== undefined) {
    if (typeof scope !== 'string') throw new errors.InvalidClientMetadata('scope must be a string');
    const words = [...new Set(scope.split(' ').filter(Boolean))];
    const unsupported = words.filter((w) => !isScope(w));
    if (unsupported.length)
      throw new errors.InvalidClientMetadata(
        `scope ${unsupported.join(', ')} ${unsupported.length === 1 ? 'is' : 'are'} not supported; the supported scopes are the authorization server metadata's scopes_supported`,
      );
    if (words.length) metadata[REGISTERED_SCOPE] = words.join(' ');
  }
  if (typeof metadata.client_id === 'string' && /^https:\/\//i.test(metadata.client_id)) {
    const name = metadata.client_name;
    if (typeof name !== 'string' || name.trim() === '')
      throw new errors.InvalidClientMetadata('client_name is required in a client ID metadata document');
  }
}

/** A registration response: the registered scope under its RFC 7591 name. */
function registeredMetadata(body: Record<string, unknown>): Record<string, unknown> {
  if (!(REGISTERED_SCOPE in body)) return body;
  const { [REGISTERED_SCOPE]: scope, ...rest } = body;
  return { ...rest, scope };
}

/**
 * CORS of the registration endpoint (the engine has none there): a browser-based client may register from any
 * origin, without credentials. Answers a preflight (true: nothing more to do); on other requests sets the headers.
 */
function registrationPreflight(ctx: KoaContextWithOIDC): boolean {
  ctx.vary('Origin');
  ctx.set('Access-Control-Allow-Origin', '*');
  if (ctx.method !== 'OPTIONS') return false;
  ctx.set('Access-Control-Allow-Methods', 'POST');
  const asked = ctx.get('Access-Control-Request-Headers');
  if (asked) ctx.set('Access-Control-Allow-Headers', asked);
  ctx.set('Access-Control-Max-Age', '3600');
  ctx.status = 204;
  return true;
}

/** The engine's Ed25519 signing key from its 32-byte seed (PKCS #8: a fixed prefix, then the seed). */
function signingJwk(seed: Buffer) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return { ...jwk, alg: 'EdDSA', use: 'sig', kid: 'gatehouse-1' };
}

/**
 * The OAuth 2.1 authorization server: oidc-provider configured for pure OAuth (no `openid` scope needed, no ID
 * token), authorization code with PKCE S256 for every client, `client_secret_basic` or `none`, exact redirect
 * URIs, opaque access tokens bound to the /v1 resource (RFC 8707), a refresh token for every client allowed the
 * grant, rotated on every use (reuse of a rotated one revokes the grant), RFC 7009 revocation, dynamic client
 * registration and Client ID Metadata Documents. Its storage is PostgreSQL (`oauth-adapter.ts`). Mounted on the
 * Fastify instance by `mount`.
 */
@Injectable()
export class OAuthServer {
  readonly provider: Provider;
  /** The resource a request that names none is for (`{BASE_URL}/v1`). */
  readonly resource: string;
  /** Every resource a token may be bound to (RFC 8707): `{BASE_URL}/v1`, `{BASE_URL}/mcp`. */
  readonly resources: readonly string[];
  private readonly logger = new Logger('OAuth');

  constructor(
    @InjectConfig() private readonly config: Config,
    models: OAuthModelRepository,
    clients: ClientsRepository,
    accounts: AccountsService,
    clock: Clock,
    connectedApps: ConnectedAppsService,
  ) {
    this.resource = resourceUrl(config.baseUrl, 'v1');
    this.resources = PROTECTED_RESOURCES.map((r) => resourceUrl(config.baseUrl, r));
    const { resource, resources } = this;
    const configuration: Configuration = {
      adapter: adapterFactory({
        models,
        clients,
        currentAuthorization: () => (Provider.ctx as KoaContextWithOIDC | undefined)?.get('authorization'),
        now: () => clock.now(),
        grantRevoked: (grantId) => connectedApps.grantRevoked(grantId),
      }),
      clients: [],
      clientAuthMethods: ['client_secret_basic', 'none'],
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        // No ID token is ever issued; the engine still checks this against the one signing algorithm it has.
        id_token_signed_response_alg: 'EdDSA',
      },
      responseTypes: ['code'],
      scopes: [],
      pkce: { required: () => true },
      allowOmittingSingleRegisteredRedirectUri: false,
      routes: {
        authorization: OAUTH_ROUTES.authorization,
        token: OAUTH_ROUTES.token,
        registration: OAUTH_ROUTES.registration,
        revocation: OAUTH_ROUTES.revocation,
        jwks: OAUTH_ROUTES.jwks,
      },
      interactions: { url: (_ctx, interaction) => `${OAUTH_ROUTES.interaction}/${interaction.uid}` },
      cookies: {
        keys: config.oauth.cookieKeys,
        long: { signed: true, httpOnly: true, sameSite: 'lax' },
        short: { signed: true, httpOnly: true, sameSite: 'lax', path: '/' },
      },
      jwks: { keys: [signingJwk(config.oauth.signingKey)] },
      enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
      ttl: {
        AccessToken: LIFETIMES.accessToken,
        AuthorizationCode: LIFETIMES.authorizationCode,
        RefreshToken: LIFETIMES.refreshToken,
        Grant: LIFETIMES.grant,
        Interaction: LIFETIMES.interaction,
        Session: LIFETIMES.session,
      },
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      // RFC 7009: revoking any token of a grant ends the grant. The engine revokes every token of the grant either
      // way (access and refresh tokens, codes); by default it kept the grant when an access token was revoked, so
      // the connection stayed listed as connected with nothing left to call with. Its end now ends the connection.
      revokeGrantPolicy: async () => true,
      rotateRefreshToken: true,
      // Every authorization shows the consent page (the grant of this authorization only, never the session's).
      loadExistingGrant: async (ctx) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
      },
      findAccount: async (_ctx, id) => {
        const account = await accounts.findById(id);
        if (!account || account.disabled_at) return undefined;
        return { accountId: id, claims: () => ({ sub: id }) };
      },
      extraClientMetadata: {
        // Not properties clients send: the first is the hook the engine calls with the whole metadata of every
        // client, however it registered, where the redirect-URI, scope and client_name rules are applied; the
        // second holds the registered `scope` (see checkedClientMetadata).
        properties: [CLIENT_RULES, REGISTERED_SCOPE],
        validator: (_ctx, key, _value, metadata) => {
          if (key === CLIENT_RULES) checkedClientMetadata(metadata as Record<string, unknown>);
        },
      },
      features: {
        devInteractions: { enabled: false },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        introspection: { enabled: false },
        // RFC 7009 §2.1: a client revokes only tokens issued to it (others are ignored, answered 200).
        revocation: {
          enabled: true,
          allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
        },
        registration: {
          enabled: true,
          secretFactory: () => `svc_cs_${randomBase62(43)}`,
        },
        resourceIndicators: {
          enabled: true,
          // An authorization request that names no resource is for /v1; a token request for a grant of several
          // resources must name one (the engine's invalid_target otherwise).
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) =>
            oneOf ? (oneOf.length === 1 ? oneOf[0] : oneOf) : resource,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx, indicator) => {
            if (!resources.includes(indicator))
              throw new errors.InvalidTarget(`the resources are ${resources.join(' and ')}`);
            return {
              scope: SCOPES.join(' '),
              audience: indicator,
              accessTokenTTL: LIFETIMES.accessToken,
              accessTokenFormat: 'opaque',
            };
          },
        },
        clientIdMetadataDocument: {
          enabled: true,
          ack: 'draft-02',
          cacheDuration: { min: 60, max: config.oauth.metadataCacheSeconds },
        },
      } as Configuration['features'],
      fetch: metadataDocumentFetch({
        allowLoopback: config.oauth.allowLocalMetadata,
        timeoutMs: config.oauth.metadataTimeoutMs,
        maxBytes: config.oauth.metadataMaxBytes,
      }) as unknown as Configuration['fetch'],
      fetchResponseBodyLimits: { 'client_id metadata document': config.oauth.metadataMaxBytes },
      // Browser-based clients may call the token and revocation endpoints from the origin of one of their
      // redirect URIs (no credentials mode; the engine adds the CORS headers).
      clientBasedCORS: (_ctx, origin, client) =>
        origin !== 'null' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
      renderError: async (ctx, out) => {
        ctx.type = 'html';
        ctx.body = renderOAuthError(out.error, out.error_description);
      },
    } as Configuration;
    this.provider = new Provider(config.authUrl, configuration);
    this.provider.proxy = config.trustProxy;
    this.prefixTokens();
    this.defaultScopes();
    this.provider.use(async (ctx, next) => {
      if (ctx.path === OAUTH_ROUTES.registration && registrationPreflight(ctx as KoaContextWithOIDC)) return;
      await next();
      const route = ctx.oidc?.route;
      if (route === 'discovery' && ctx.status === 200) ctx.body = this.metadata(ctx.body);
      if ((route === 'registration' || route === 'client') && ctx.status < 300 && ctx.body)
        ctx.body = registeredMetadata(ctx.body as Record<string, unknown>);
    });
    this.provider.on('server_error', (_ctx, err: Error) =>
      this.logger.error(`server_error: ${err.message}`, err.stack),
    );
  }

  /**
   * An authorization request that asks for no scope this server knows gets the small default read set
   * (`DEFAULT_SCOPES`), never every scope: the engine reads what a request asks for from the context's
   * `requestParamScopes` (consent prompt, the code's scope), so that is where the default is given.
   */
  private defaultScopes(): void {
    const proto = this.provider.OIDCContext.prototype as object;
    const asked = Object.getOwnPropertyDescriptor(proto, 'requestParamScopes')!.get!;
    Object.defineProperty(proto, 'requestParamScopes', {
      configurable: true,
      get(this: { route?: string }) {
        const scopes = asked.call(this) as Set<string>;
        if (this.route !== 'authorization' && this.route !== 'resume') return scopes;
        return [...scopes].some(isScope) ? scopes : new Set<string>(DEFAULT_SCOPES);
      },
    });
  }

  /** Opaque values carry their kind in a prefix (what the /v1 credential registry dispatches on). */
  private prefixTokens(): void {
    const prefixed: [{ prototype: { generateTokenId(): string } }, string][] = [
      [this.provider.AccessToken as never, ACCESS_TOKEN_PREFIX],
      [this.provider.RefreshToken as never, REFRESH_TOKEN_PREFIX],
      [this.provider.AuthorizationCode as never, AUTHORIZATION_CODE_PREFIX],
    ];
    for (const [model, prefix] of prefixed) {
      const generate = model.prototype.generateTokenId;
      model.prototype.generateTokenId = function (this: unknown) {
        return `${prefix}${generate.call(this)}`;
      };
    }
  }

  /** RFC 8414 metadata: only what this server does. The authorization page lives on APP_URL. */
  private metadata(body: unknown): Record<string, unknown> {
    const engine = body as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of METADATA_KEYS) if (engine[key] !== undefined) out[key] = engine[key];
    out.authorization_endpoint = `${this.config.appUrl}${OAUTH_ROUTES.authorization}`;
    out.scopes_supported = [...SCOPES];
    out.revocation_endpoint_auth_methods_supported = engine.token_endpoint_auth_methods_supported;
    out.client_id_metadata_document_supported = true;
    out.service_documentation = `${this.config.docsUrl}/connect-an-app`;
    return out;
  }

  /**
   * Mounts the server's routes on Fastify (before it is ready): the engine reads its own bodies (forms and JSON),
   * so these routes parse none, and it writes its own responses (the security headers set so far are copied).
   * The plugin is queued, not awaited: loading Fastify's plugin queue here would fix the routes Nest registered
   * before it sets its error handler, and they would answer with Fastify's default errors.
   */
  mount(fastify: FastifyInstance): void {
    const callback = this.provider.callback();
    const handler = (req: FastifyRequest, reply: FastifyReply) => {
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value as string);
      reply.hijack();
      callback(req.raw, reply.raw);
    };
    void fastify.register(async (instance) => {
      instance.removeAllContentTypeParsers();
      instance.addContentTypeParser('*', (_req, _payload, done) => done(null));
      // The engine's methods go to the engine; any other is answered in the OAuth error format too.
      const all = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
      const route = (url: string, methods: (typeof all)[number][]) => {
        instance.route({ method: methods, url, handler });
        instance.route({
          method: all.filter((m) => !methods.includes(m)),
          url,
          handler: (_req, reply) =>
            reply
              .status(405)
              .header('Allow', methods.join(', '))
              .header('Cache-Control', 'no-store')
              .send({ error: 'invalid_request', error_description: `use ${methods.join(' or ')} here` }),
        });
      };
      route(OAUTH_ROUTES.authorization, ['GET', 'POST']);
      route(`${OAUTH_ROUTES.authorization}/:uid`, ['GET']);
      route(OAUTH_ROUTES.token, ['POST', 'OPTIONS']);
      route(OAUTH_ROUTES.revocation, ['POST', 'OPTIONS']);
      route(OAUTH_ROUTES.registration, ['POST', 'OPTIONS']);
      route(`${OAUTH_ROUTES.registration}/:clientId`, ['GET']);
      route(OAUTH_ROUTES.metadata, ['GET', 'OPTIONS']);
    });
  }
}
