import { bootTestApp, TestApp } from '../harness';
import { FormPageModule } from '../fixtures/form-page.module';

/** The shared HTML page framework: layout, stylesheet, CSP, CSRF-protected forms, HTML error pages. */
describe('page framework', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [FormPageModule] });
  });
  afterAll(() => t?.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });
  const postForm = (body: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/test-pages/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      payload: body,
    });

  it('renders a page in the layout, linked to the one stylesheet, under a strict CSP', async () => {
    const res = await get('/test-pages/form');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatch(/^<!doctype html>/);
    expect(res.body).toContain('<title>Test form · Gatehouse</title>');
    expect(res.body).toContain('<link rel="stylesheet" href="/assets/pages.css">');
    expect(res.body).not.toMatch(/<script|\sstyle=|<style/i);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(res.headers['x-frame-options']).toBe('DENY');

    const css = await get('/assets/pages.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('font:');
  });

  it('a form carries a CSRF token; a post with its cookie and token is accepted, any other is a 403 page', async () => {
    const page = await get('/test-pages/form');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1];
    const setCookie = [page.headers['set-cookie']].flat().join('\n');
    expect(setCookie).toMatch(/gh_csrf=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    const cookie = /gh_csrf=[^;]+/.exec(setCookie)![0];

    const ok = await postForm(`_csrf=${encodeURIComponent(token)}&name=Ama`, cookie);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('Thanks, Ama.');

    for (const refused of [
      await postForm('name=Ama', cookie), // no token
      await postForm(`_csrf=${encodeURIComponent(token)}&name=Ama`), // no cookie (another site's post)
      await postForm(`_csrf=${encodeURIComponent(token.slice(0, -2))}xx&name=Ama`, cookie), // wrong token
    ]) {
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.body).toContain('<h1>Not allowed</h1>');
      expect(refused.body).toContain('reload the page');
    }
  });

  it('form bodies reach page routes only: the APIs still refuse them as before', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/people',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('an unknown page is the plain 404 page for a browser and problem details for an API client', async () => {
    const browser = await get('/no/such/page', { accept: 'text/html,application/xhtml+xml' });
    expect(browser.statusCode).toBe(404);
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(browser.body).toContain('<h1>Page not found</h1>');
    expect(browser.body).toContain('/assets/pages.css');
    const api = await get('/no/such/page');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ code: 'not_found', status: 404 });
    // The API surfaces keep their formats whatever the client accepts.
    const v1 = await get('/v1/no-such-route', { accept: 'text/html' });
    expect(v1.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
