import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { bootTestApp, TestApp } from '../harness';
import { Contract } from './openapi-contract';
import { contentSeeder } from '../../src/content/content.seeder';
import { PublicKeysService } from '../../src/content/platform/public-keys.service';

export interface ContentTestApp {
  t: TestApp;
  /** A direct connection, to compare responses with the rows (and to find private values). */
  pg: Client;
  contract: Contract;
  /** A partner key (600 requests a minute), so tests are not limited to the keyless 30. */
  key: string;
  /** Every 200 body `ok` has seen, for privacy checks. */
  bodies: string[];
  /** GET with the partner key. */
  get(url: string): ReturnType<TestApp['app']['inject']>;
  /** GET that must answer 200 and match the served contract; returns the parsed body. */
  ok(url: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** GET that must answer 404 NOT_FOUND in the public envelope. */
  notFound(url: string): Promise<void>;
  close(): Promise<void>;
}

/** The app on its own database with the scale-1 content seed, the served public contract and a partner key. */
export async function bootContentApp(): Promise<ContentTestApp> {
  const t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  await contentSeeder.run(t.app.get(DataSource), { scale: 1, log: () => undefined });
  const contract = await Contract.fetch(t.app, '/public/v1/openapi.json');
  const key = (await t.app.get(PublicKeysService).create('Test partner')).key;
  const bodies: string[] = [];
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  return {
    t,
    pg,
    contract,
    key,
    bodies,
    get,
    ok: async (url) => {
      const res = await get(url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      contract.expectValid(res, 'GET', url);
      bodies.push(res.body);
      return res.json();
    },
    notFound: async (url) => {
      const res = await get(url);
      expect({ url, status: res.statusCode, code: res.json().error?.code }).toEqual({
        url,
        status: 404,
        code: 'NOT_FOUND',
      });
      contract.expectValid(res, 'GET', url);
    },
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
