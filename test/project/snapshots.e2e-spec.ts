import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { schemaSnapshot } from '../support/schema-snapshot';

const root = join(__dirname, '../..');
/** `npm run snapshots` sets it: the committed files are rewritten from what the code serves and migrates. */
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

/** Compares `actual` with the committed file (or rewrites the file when updating). */
function matchesCommitted(file: string, actual: string) {
  const path = join(root, file);
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`${file} is missing: run \`npm run snapshots\` and commit it`);
  const committed = readFileSync(path, 'utf8');
  if (committed !== actual) {
    // The diff names the lines; the message names the fix.
    expect({ file, lines: actual.split('\n') }).toEqual({ file, lines: committed.split('\n') });
  }
}

/**
 * The schema the migrations build and the two OpenAPI documents the service serves are committed
 * (`migrations/schema.snapshot.txt`, `docs/openapi/*.json`): a change to either shows in review, and code that
 * changes them without the committed copy being regenerated (`npm run snapshots`) turns the suite red.
 */
describe('committed snapshots', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the migrated schema matches migrations/schema.snapshot.txt', async () => {
    const db = new Client({ connectionString: t.db.url });
    await db.connect();
    try {
      matchesCommitted('migrations/schema.snapshot.txt', await schemaSnapshot(db));
    } finally {
      await db.end();
    }
  });

  it.each([
    ['/v1/openapi.json', 'docs/openapi/visitor-management.json'],
    ['/public/v1/openapi.json', 'docs/openapi/public-content.json'],
  ])('the served %s matches %s', async (url, file) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    matchesCommitted(file, `${JSON.stringify(res.json(), null, 2)}\n`);
  });
});
