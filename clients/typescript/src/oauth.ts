/** The tokens of a connected app (OAuth 2.1 authorization code grant), as the token endpoint returns them. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives, when the token endpoint said. */
  expiresIn?: number;
  scope?: string;
}

/** A connected app's credentials: the client refreshes the access token once on a 401 and retries the call. */
export interface OAuthOptions {
  accessToken: string;
  refreshToken: string;
  /** The token endpoint, e.g. `https://gatehouse.example/oauth/token` (the metadata's `token_endpoint`). */
  tokenEndpoint: string;
  clientId: string;
  /** Confidential clients only (sent with HTTP Basic); public clients send `client_id` in the form. */
  clientSecret?: string;
  /**
   * Called with the new tokens after every refresh. Refresh tokens rotate: store the new one, the old one is now
   * spent (presenting it again revokes the whole grant).
   */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
}

/** The OAuth error of a failed refresh (`invalid_grant` once the grant is revoked), in the token endpoint's format. */
export class OAuthRefreshError extends Error {
  override readonly name = 'OAuthRefreshError';
  constructor(
    readonly error: string,
    readonly status: number,
    description?: string,
  ) {
    super(`token refresh failed: ${error}${description ? ` (${description})` : ''}`);
  }
}

/** Holds the current tokens and refreshes them, one refresh at a time however many calls got a 401. */
export class TokenRefresher {
  private tokens: OAuthTokens;
  private inflight: Promise<void> | null = null;

  constructor(
    private readonly o: OAuthOptions,
    private readonly fetchImpl: (request: Request) => Promise<Response>,
  ) {
    this.tokens = { accessToken: o.accessToken, refreshToken: o.refreshToken };
  }

  get accessToken(): string {
    return this.tokens.accessToken;
  }

  /**
   * A new access token after `rejected` got a 401. When another call already replaced it, that token is used;
   * otherwise the refresh token is spent once (concurrent callers wait on the same refresh).
   */
  async refreshAfter(rejected: string): Promise<void> {
    if (this.tokens.accessToken !== rejected) return;
    this.inflight ??= this.refresh().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async refresh(): Promise<void> {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: this.tokens.refreshToken,
    });
    const headers = new Headers({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    if (this.o.clientSecret !== undefined) {
      const basic = `${encodeURIComponent(this.o.clientId)}:${encodeURIComponent(this.o.clientSecret)}`;
      headers.set('authorization', `Basic ${btoa(basic)}`);
    } else form.set('client_id', this.o.clientId);
    const res = await this.fetchImpl(
      new Request(this.o.tokenEndpoint, { method: 'POST', headers, body: form.toString() }),
    );
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || typeof body.access_token !== 'string')
      throw new OAuthRefreshError(
        typeof body.error === 'string' ? body.error : 'invalid_response',
        res.status,
        typeof body.error_description === 'string' ? body.error_description : undefined,
      );
    this.tokens = {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : this.tokens.refreshToken,
      ...(typeof body.expires_in === 'number' ? { expiresIn: body.expires_in } : {}),
      ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
    };
    await this.o.onTokens?.({ ...this.tokens });
  }
}
