import { existsSync, readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../support/platform-fixtures';
import { FileLinks } from '../../../src/visitor/files/file-links';
import { getLink, useDesk, JPEG, phoneFrom, PNG, putToLink } from '../../support/desk-app';
import { forgedSignature } from '../../support/forged';

const newPhone = phoneFrom(5100000);

/** Every file under `dir`, recursively. */
function stored(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('files over HTTP (local driver)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-files-'));
  const d = useDesk({ FILES_DIR: dir }, () => rmSync(dir, { recursive: true, force: true }));

  const register = (body: Record<string, unknown>) =>
    call(d.t.app, 'POST', '/v1/files', {
      key: d.key,
      body: { purpose: 'delivery_photo', content_type: 'image/png', size: PNG.length, ...body },
    });

  it('registers an upload, takes the bytes through the signed link, and hands out a download link', async () => {
    const reg = await register({ filename: 'parcel.png' });
    expect(reg.statusCode).toBe(201);
    d.contract.expectValid(reg, 'POST', '/v1/files');
    const f = reg.json();
    expect(f).toMatchObject({
      status: 'pending',
      purpose: 'delivery_photo',
      size: PNG.length,
      download: null,
    });
    expect(f.upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'image/png' } });
    expect(Date.parse(f.upload.expires_at)).toBeGreaterThan(Date.now());

    const put = await putToLink(d, f.upload, PNG);
    expect(put.statusCode).toBe(204);
    const got = await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key });
    expect(got.statusCode).toBe(200);
    d.contract.expectValid(got, 'GET', '/v1/files/{file_id}');
    expect(got.json()).toMatchObject({ status: 'ready', upload: null, download: { method: 'GET' } });
    const dl = await getLink(d, got.json().download.url);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-type']).toBe('image/png');
    expect(dl.rawPayload.equals(PNG)).toBe(true);

    // a file is uploaded once
    const again = await putToLink(d, f.upload, PNG);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('invalid_state');
  });

  it('of two simultaneous uploads of one file exactly one is stored', async () => {
    const other = Buffer.from(PNG);
    other[other.length - 5] ^= 0xff; // same size and signature, other bytes
    const f = (await register({})).json();
    const results = await Promise.all([putToLink(d, f.upload, PNG), putToLink(d, f.upload, other)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([204, 409]);
    const winner = results[0].statusCode === 204 ? PNG : other;
    const got = (await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key })).json();
    expect((await getLink(d, got.download.url)).rawPayload.equals(winner)).toBe(true);
  });

  it('refuses types and sizes a purpose does not allow when registering', async () => {
    const res = await register({
      purpose: 'signature',
      content_type: 'application/pdf',
      size: 2 * 1024 * 1024,
    });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { location: string }) => e.location)
        .sort(),
    ).toEqual(['body.content_type', 'body.size']);
  });

  it('an upload over the registered size, or whose bytes are not its type, stores nothing', async () => {
    const before = stored(dir).length;
    const f = (await register({})).json();
    const tooBig = await putToLink(d, f.upload, Buffer.concat([PNG, Buffer.alloc(10)]));
    expect(tooBig.statusCode).toBe(422);
    expect(tooBig.json().errors[0].location).toBe('body');

    const g = (await register({ size: JPEG.length })).json();
    const wrongBytes = await putToLink(d, g.upload, JPEG); // JPEG bytes declared as PNG
    expect(wrongBytes.statusCode).toBe(422);
    expect(wrongBytes.json().errors[0].message).toMatch(/image\/jpeg, not image\/png/);

    const wrongHeader = await putToLink(d, f.upload, PNG, 'image/jpeg');
    expect(wrongHeader.statusCode).toBe(422);
    expect(wrongHeader.json().errors[0].location).toBe('header.Content-Type');

    expect(stored(dir).length).toBe(before);
    for (const id of [f.id, g.id])
      expect((await call(d.t.app, 'GET', `/v1/files/${id}`, { key: d.key })).json().status).toBe('pending');
  });

  it('refuses expired, tampered and wrong-method links', async () => {
    const f = (await register({})).json();
    const links = new FileLinks(d.t.config.secrets.sessionSecret);
    const base = new URL(f.upload.url).origin;
    const expired = links.sign({ fileId: f.id, method: 'PUT', expiresAt: new Date(Date.now() - 1000) });
    const res1 = await putToLink(d, { url: `${base}/files/${expired}`, headers: f.upload.headers }, PNG);
    expect(res1.statusCode).toBe(403);
    expect(res1.json().detail).toMatch(/expired/);

    const token = new URL(f.upload.url).pathname.split('/').pop()!;
    const [id, method, exp, sig] = token.split('.');
    const tampered = [
      `${id}.${method}.${Number(exp) + 3600}.${sig}`, // a later expiry
      `${id}.GET.${exp}.${sig}`, // another method
      forgedSignature(token), // another signature
    ];
    for (const t of tampered) {
      const res = await putToLink(d, { url: `${base}/files/${t}`, headers: f.upload.headers }, PNG);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toMatch(/not valid/);
    }
    // the upload link used to download, and a download link used to upload
    const wrong = await getLink(d, f.upload.url, 'GET');
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().detail).toMatch(/for PUT, not GET/);
    await putToLink(d, f.upload, PNG);
    const dl = (await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key })).json().download;
    const up = await getLink(d, dl.url, 'PUT');
    expect(up.statusCode).toBe(403);
    expect(up.json().detail).toMatch(/for GET, not PUT/);
    // another file's link does not open this one
    expect((await getLink(d, dl.url.replace(f.id, 'file_somethingElse'))).statusCode).toBe(403);
  });

  it('erasing a visitor deletes their files, rows and bytes', async () => {
    const v = (
      await call(d.t.app, 'POST', '/v1/visits', {
        key: d.key,
        body: {
          site_id: d.site,
          host_id: d.host,
          type: 'meeting',
          visitor: { name: 'Esi Photo', phone: newPhone() },
        },
      })
    ).json();
    // A visitor's photo must hang on a visit, or erasing the visitor could not find it.
    const loose = await register({ purpose: 'visitor_photo' });
    expect(loose.statusCode).toBe(422);
    expect(loose.json().errors).toEqual([
      { location: 'body.visit_id', message: 'a visitor_photo must name its visit' },
    ]);
    const f = (await register({ purpose: 'visitor_photo', visit_id: v.id })).json();
    expect(f.visit_id).toBe(v.id);
    expect((await putToLink(d, f.upload, PNG)).statusCode).toBe(204);
    const before = stored(dir).length;
    const erased = await call(d.t.app, 'DELETE', `/v1/visitors/${v.visitor.id}`, { key: d.key });
    expect(erased.statusCode).toBe(204);
    expect((await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key })).statusCode).toBe(404);
    expect(stored(dir).length).toBe(before - 1);
    expect(stored(dir).some((p) => p.endsWith(f.id))).toBe(false);

    const unknownVisit = await register({ visit_id: 'visit_doesNotExist' });
    expect(unknownVisit.statusCode).toBe(422);
    expect(unknownVisit.json().errors[0].location).toBe('body.visit_id');
  });
});
