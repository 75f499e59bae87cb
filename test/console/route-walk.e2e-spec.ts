import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { bootTestApp, TestApp } from '../harness';
import { createOrg } from '../support/platform-fixtures';
import { createPerson } from '../support/oauth-fixtures';
import { PASSWORD } from '../../bench/oauth-flow';
import { controllerRoutes } from '../../src/common/http/route-walk';
import { consoleAccessOf, ConsoleAccess } from '../../src/console/console-access';
import { surfaceOf } from '../../src/common/http/surface';
import { ConsoleProbeModule } from '../fixtures/console-probe.module';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Walked {
  method: Method;
  path: string;
  access: ConsoleAccess | undefined;
  /** A page sharing its path with a JSON endpoint (`@ForBrowsers()`): reached with `Accept: text/html` only. */
  browser: boolean;
}

/**
 * Every console route declares who may call it (deny by default, as /v1): the walk lists every route of the
 * console surface from the application's own controllers, so a new route is covered without editing this test,
 * and calls each one without a session, with a member's session, and (for operator routes) without the operator
 * token: nobody gets past a declaration that excludes them.
 */
describe('console route walk', () => {
  let t: TestApp;
  let routes: Walked[];
  let member: string;

  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [ConsoleProbeModule], env: { RUN_WORKER: 'false' } });
    routes = [...controllerRoutes(t.app)].flatMap((r) =>
      r.paths
        .filter((p) => surfaceOf(p) === 'console')
        .map((path) => ({
          method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, r.handler) as number] as Method,
          path,
          access: consoleAccessOf(r),
          browser: Reflect.getMetadata('__fastify_route_constraints__', r.handler)?.browser === 'html',
        })),
    );
    const org = await createOrg(t.app);
    const person = await createPerson(t, org, 'member');
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email: person.email, password: PASSWORD },
    });
    expect(signIn.statusCode).toBe(200);
    member = String(signIn.headers['set-cookie']).split(';')[0];
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A concrete URL for a route (path parameters filled with an id that exists nowhere). */
  const urlOf = (path: string) => path.replace(/:[a-zA-Z_]+/g, 'x_route_walk');
  const send = (r: Walked, headers: Record<string, string> = {}) => {
    const body = r.method !== 'GET' && r.method !== 'DELETE';
    if (r.browser) headers = { accept: 'text/html', ...headers };
    return t.app.inject({
      method: r.method,
      url: urlOf(r.path),
      headers: body ? { 'content-type': 'application/json', ...headers } : headers,
      payload: body ? '{}' : undefined,
    });
  };

  it('finds the console routes, and every one but the fixture declares its access', () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => !r.access).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /console/__undeclared',
    ]);
  });

  it('a console route that declares nothing is refused, even to a signed-in person', async () => {
    const r = routes.find((x) => x.path === '/console/__undeclared')!;
    for (const headers of [{}, { cookie: member }] as Record<string, string>[]) {
      const res = await send(r, headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
      expect(res.body).not.toContain('leaked');
    }
  });

  it('without a session, no route for people or the operator answers anything but a refusal', async () => {
    const refused: string[] = [];
    for (const r of routes.filter((x) => x.access && x.access.kind !== 'public')) {
      const res = await send(r);
      // The JSON endpoints answer 401; pages send the browser to the sign-in page.
      const ok =
        res.statusCode === 401 ||
        (res.statusCode === 303 && String(res.headers.location).startsWith('/console/sign-in')) ||
        (res.statusCode === 403 && r.method !== 'GET');
      if (!ok) refused.push(`${r.method} ${r.path} → ${res.statusCode}`);
    }
    expect(refused).toEqual([]);
  });

  it("a member's session gets 403 on every owner/admin route and 401 on every operator route", async () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const a = r.access;
      if (!a || a.kind === 'public') continue;
      if (a.kind === 'people' && (a.roles === null || a.roles.includes('member'))) continue;
      const res = await send(r, { cookie: member });
      const expected = a.kind === 'operator' ? 401 : 403;
      if (res.statusCode !== expected)
        wrong.push(`${r.method} ${r.path} → ${res.statusCode} (${res.body.slice(0, 80)})`);
    }
    expect(wrong).toEqual([]);
  });
});
