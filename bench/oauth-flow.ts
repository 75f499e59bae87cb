/**
 * The authorization page driven as a person without JavaScript would (sign in, consent), over HTTP: used by the
 * OAuth benchmark to get its tokens and by the OAuth tests (test/support/oauth-fixtures.ts).
 */

export const PASSWORD = 'correct horse battery staple';

/** A browser without JavaScript: follows nothing by itself, keeps cookies by name. */
export class FormBrowser {
  private readonly cookies = new Map<string, string>();

  async go(url: string, init: { method?: string; form?: Record<string, string | string[]> } = {}) {
    const body = init.form ? new URLSearchParams() : undefined;
    for (const [k, v] of Object.entries(init.form ?? {}))
      for (const one of Array.isArray(v) ? v : [v]) body!.append(k, one);
    const res = await fetch(url, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.get('location');
    return {
      res,
      status: res.status,
      location: location ? new URL(location, url).toString() : null,
      text: await res.text(),
    };
  }
}

export interface AuthorizeOptions {
  person?: { email: string };
  scope: string;
  redirectUri: string;
  clientId: string;
  state?: string;
  codeChallenge?: string | null;
  method?: string;
  untick?: string[];
  /** Leave the boxes as the page ticks them (destructive scopes unticked) instead of ticking every one. */
  asShown?: boolean;
  mode?: 'live' | 'test';
  decision?: 'allow' | 'deny';
  extra?: Record<string, string>;
}

/**
 * Drives the authorization page as a person would (sign in, consent) and returns the URL the browser is finally
 * sent to (the app's redirect URI with `code` or `error`), or the page it stopped on.
 */
export async function authorize(
  baseUrl: string,
  o: AuthorizeOptions,
  browser = new FormBrowser(),
): Promise<{ callback: URL | null; page: string; status: number }> {
  const url = new URL('/oauth/authorize', baseUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', o.clientId);
  url.searchParams.set('redirect_uri', o.redirectUri);
  if (o.scope !== '') url.searchParams.set('scope', o.scope); // '' sends no scope at all
  url.searchParams.set('state', o.state ?? 'st-1');
  if (o.codeChallenge !== null) {
    url.searchParams.set('code_challenge', o.codeChallenge ?? 'x'.repeat(43));
    url.searchParams.set('code_challenge_method', o.method ?? 'S256');
  }
  for (const [k, v] of Object.entries(o.extra ?? {})) url.searchParams.set(k, v);
  let step = await browser.go(url.toString());
  for (let i = 0; i < 12; i++) {
    if (step.location && step.location.startsWith(o.redirectUri))
      return { callback: new URL(step.location), page: step.text, status: step.status };
    if (step.location) {
      step = await browser.go(step.location);
      continue;
    }
    const page = step.text;
    const action = (name: string) => {
      const m = new RegExp(`action="([^"]*/${name})"`).exec(page);
      return m ? new URL(m[1].replace(/&amp;/g, '&'), baseUrl).toString() : null;
    };
    const csrf = /name="_csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    if (action('sign-in') && o.person) {
      step = await browser.go(action('sign-in')!, {
        form: { _csrf: csrf, email: o.person.email, password: PASSWORD },
      });
      continue;
    }
    if (action('consent')) {
      const scopes = [...page.matchAll(/name="scope:([^"]+)"( checked)?/g)]
        .filter((m) => !o.asShown || m[2] !== undefined)
        .map((m) => m[1]);
      const ticked = Object.fromEntries(
        scopes.filter((s) => !(o.untick ?? []).includes(s)).map((s) => [`scope:${s}`, 'on']),
      );
      step = await browser.go(action('consent')!, {
        form: { _csrf: csrf, ...ticked, mode: o.mode ?? 'test', decision: o.decision ?? 'allow' },
      });
      continue;
    }
    return { callback: null, page, status: step.status };
  }
  throw new Error('authorization did not finish');
}
