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
  return {
    t,
    pg,
    contract,
    key,
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
