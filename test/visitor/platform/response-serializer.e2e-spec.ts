import { bootTestApp, TestApp } from '../../harness';
import { LeakyMapperModule, leakyItem } from '../../fixtures/leaky-mapper.module';
import { Contract } from '../../support/openapi-contract';
import { PublicPipeline } from '../../../src/content/platform/public-pipeline';

/** What the documented response class lets out of leakyItem(id), in the class's order. */
const documented = (id: string) => {
  const { score, created_at, owner, tags, meta } = leakyItem(id);
  return {
    id,
    score,
    created_at: created_at.toISOString(),
    owner: { handle: owner.handle, avatar_url: owner.avatar_url },
    tags,
    meta,
  };
};
const PRIVATE = /password_hash|internal_notes|owner@private|organisation_id|org_private/;

describe('response schemas: a field the response class does not document never leaves', () => {
  let t: TestApp;
  let publicContract: Contract;
  let visitorContract: Contract;

  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [LeakyMapperModule], env: { RUN_WORKER: 'false' } });
    publicContract = await Contract.fetch(t.app, '/public/v1/openapi.json');
    visitorContract = await Contract.fetch(t.app, '/v1/openapi.json');
  });
  afterAll(() => t.close());

  /** A request whose response (status, body, headers) is validated against its surface's served document. */
  const send = async (method: 'GET' | 'HEAD' | 'POST', url: string, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method, url, headers });
    if (method !== 'HEAD' && res.statusCode !== 304)
      (url.startsWith('/public/') ? publicContract : visitorContract).expectValid(res, method, url);
    return res;
  };

  it('a /public/v1 list whose mapper adds private fields at every level sends only the documented ones', async () => {
    // the routes are dispatched directly (public-dispatch.ts), not through Nest's router
    expect(t.app.get(PublicPipeline).directFor('/public/v1/__leaky')).not.toBeNull();
    expect(t.app.get(PublicPipeline).directFor('/public/v1/__leaky/:id')).not.toBeNull();
    const res = await send('GET', '/public/v1/__leaky');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toMatch(PRIVATE);
    // byte for byte what JSON.stringify gives for the documented fields (nulls, dates, escapes, free-form objects)
    expect(res.body).toBe(JSON.stringify({ data: [documented('itm_1'), documented('itm_2')], total: 2 }));
  });

  it('a /public/v1 detail, its HEAD and its 304 carry the filtered body and its ETag', async () => {
    const get = await send('GET', '/public/v1/__leaky/itm_7');
    expect([get.statusCode, get.body]).toEqual([200, JSON.stringify(documented('itm_7'))]);
    const head = await send('HEAD', '/public/v1/__leaky/itm_7');
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
    const cached = await send('GET', '/public/v1/__leaky/itm_7', {
      'if-none-match': String(get.headers.etag),
    });
    expect([cached.statusCode, cached.body]).toEqual([304, '']);
  });

  it('a /v1 GET (200) and POST (201) whose mapper adds private fields send only the documented ones', async () => {
    const get = await send('GET', '/v1/__leaky/itm_3');
    expect([get.statusCode, get.body]).toEqual([200, JSON.stringify(documented('itm_3'))]);
    const post = await send('POST', '/v1/__leaky');
    expect([post.statusCode, post.body]).toEqual([201, JSON.stringify(documented('itm_new'))]);
  });

  it('errors keep their own shape (problem details, public envelope): only 2xx bodies are filtered', async () => {
    const problem = await send('GET', '/v1/__leaky/itm_missing');
    expect(problem.statusCode).toBe(404);
    expect(problem.json()).toMatchObject({ status: 404, code: 'not_found', detail: 'No such item.' });
    const envelope = await send('GET', '/public/v1/__leaky/itm_missing');
    expect(envelope.statusCode).toBe(404);
    expect(envelope.json()).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No such item.', ref: expect.any(String) },
    });
  });
});
