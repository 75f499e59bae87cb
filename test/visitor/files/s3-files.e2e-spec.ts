import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
// s3rver has no type declarations: a local S3-compatible server for this test only.
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
};
import { call } from '../../support/platform-fixtures';
import { FILE_STORAGE, FileStorage } from '../../../src/visitor/files/file-storage';
import { bootDesk, Desk, freshOrg, JPEG, PNG } from '../../support/desk-app';

/**
 * The S3 driver against s3rver, a local S3-compatible server started here: presigned upload and download, and a
 * presigned upload whose bytes are not the registered type, rejected (and deleted) when the file is read.
 */
describe('files over HTTP (S3 driver, s3rver)', () => {
  const d = {} as Desk;
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-s3-'));
  let s3: InstanceType<typeof S3rver>;
  let endpoint: string;

  beforeAll(async () => {
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'gatehouse-test' }],
    });
    const addr = await s3.run();
    endpoint = `http://127.0.0.1:${addr.port}`;
    Object.assign(
      d,
      await bootDesk({
        FILES_DRIVER: 's3',
        FILES_S3_BUCKET: 'gatehouse-test',
        FILES_S3_ENDPOINT: endpoint,
        FILES_S3_FORCE_PATH_STYLE: 'true',
        FILES_S3_ACCESS_KEY_ID: 'S3RVER',
        FILES_S3_SECRET_ACCESS_KEY: 'S3RVER',
      }),
    );
    Object.assign(d, await freshOrg(d));
  });
  afterAll(async () => {
    await d.pg?.end();
    await d.t?.close();
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const register = (bytes: Buffer) =>
    call(d.t.app, 'POST', '/v1/files', {
      key: d.key,
      body: { purpose: 'delivery_photo', content_type: 'image/png', size: bytes.length },
    });

  it('uploads and downloads through presigned URLs; the file is ready once its bytes check out', async () => {
    const f = (await register(PNG)).json();
    expect(f.upload.url.startsWith(`${endpoint}/gatehouse-test/`)).toBe(true);
    expect(f.upload.url).toMatch(/X-Amz-Signature=/);
    const put = await fetch(f.upload.url, { method: 'PUT', headers: f.upload.headers, body: PNG });
    expect(put.status).toBe(200);

    const got = await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key });
    expect(got.statusCode).toBe(200);
    d.contract.expectValid(got, 'GET', '/v1/files/{file_id}');
    expect(got.json()).toMatchObject({ status: 'ready', download: { method: 'GET' } });
    const dl = await fetch(got.json().download.url);
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(PNG)).toBe(true);

    // s3rver does not verify SigV4 signatures, so refusing a tampered or wrong-method URL is the bucket's own
    // check; what this service controls is what the URLs sign and how long they live.
    const upload = new URL(f.upload.url).searchParams;
    expect(upload.get('X-Amz-SignedHeaders')?.split(';').sort()).toEqual([
      'content-length',
      'content-type',
      'host',
    ]);
    expect(Number(upload.get('X-Amz-Expires'))).toBeLessThanOrEqual(300);
    expect(Number(new URL(got.json().download.url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(
      300,
    );
  });

  it('bytes that are not the registered type are rejected when read, and the object is deleted', async () => {
    const f = (await register(JPEG)).json(); // registered as PNG, the bytes are JPEG
    const put = await fetch(f.upload.url, { method: 'PUT', headers: f.upload.headers, body: JPEG });
    expect(put.status).toBe(200);
    const got = (await call(d.t.app, 'GET', `/v1/files/${f.id}`, { key: d.key })).json();
    expect(got).toMatchObject({ status: 'rejected', download: null });
    expect(got.rejected_reason).toMatch(/image\/jpeg, not image\/png/);
    const storage = d.t.app.get<FileStorage>(FILE_STORAGE);
    expect(await storage.peek(`${d.org.id}/test/${f.id}`, 10)).toBeNull();
    expect(storage.name).toBe('s3');
  });
});
