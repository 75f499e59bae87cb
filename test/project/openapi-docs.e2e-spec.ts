import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { bootTestApp, createTestDatabase, TestApp } from '../harness';
import { Contract } from '../support/openapi-contract';
import { toOpenApi31 } from '../../src/docs/openapi.builder';

const run = promisify(execFile);

describe('OpenAPI documents and /docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['/public/v1/openapi.json', '1.0.0', '/public/v1'],
    ['/v1/openapi.json', '1.0.0-preview', '/v1'],
  ])(
    '%s is a valid OpenAPI 3.1 document, version %s, holding only its own surface',
    async (url, version, prefix) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe(version);
      expect(doc.servers[0].url).toBe(`${t.config.baseUrl}${prefix}`);
      const validator = new Validator();
      const result = await validator.validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      for (const path of Object.keys(doc.paths)) {
        expect(
          path.startsWith('/public') ||
            path.startsWith('/console') ||
            path.startsWith('/docs') ||
            path.startsWith('/health'),
        ).toBe(false);
      }
      expect(doc.paths['/openapi.json'].get).toBeDefined();
      // the document describes its own response
      new Contract(doc).expectValid(res, 'GET', url);
    },
  );

  it.each(['/public/v1/openapi.json', '/v1/openapi.json'])(
    '%s passes redocly lint with no errors',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      const dir = mkdtempSync(join(tmpdir(), 'gh-openapi-'));
      const file = join(dir, 'doc.json');
      writeFileSync(file, res.body);
      const bin = join(__dirname, '../../node_modules/.bin/redocly');
      // exits non-zero on any error; warnings (e.g. no license) are allowed
      const out = await run(bin, ['lint', file, '--format', 'stylish'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      }).catch((e: { stdout: string; stderr: string }) => e);
      rmSync(dir, { recursive: true, force: true });
      expect(`${out.stdout}${out.stderr}`).not.toMatch(/\berror\b/);
      expect(`${out.stdout}${out.stderr}`).toMatch(/valid/i);
    },
    60_000,
  );

  it.each(['/public/v1/openapi.json', '/v1/openapi.json'])(
    '%s states nullability the OpenAPI 3.1 way: no `nullable`, null in type unions and enums',
    async (url) => {
      const doc = (await t.app.inject({ method: 'GET', url })).json();
      const problems: string[] = [];
      let unions = 0;
      const walk = (node: unknown, at: string): void => {
        if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
        if (node === null || typeof node !== 'object') return;
        const o = node as Record<string, unknown>;
        if ('nullable' in o) problems.push(`${at}: nullable`);
        const types = Array.isArray(o.type) ? o.type : [];
        if (
          types.includes('null') ||
          (o.anyOf as { type?: string }[] | undefined)?.some((x) => x.type === 'null')
        )
          unions++;
        if (types.includes('null') && Array.isArray(o.enum) && !o.enum.includes(null))
          problems.push(`${at}: enum without null`);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      };
      walk(doc, '');
      expect(problems).toEqual([]);
      expect(unions).toBeGreaterThan(20);
    },
  );

  it('/v1 documents Idempotency-Key once on every POST that takes a credential, from the builder alone', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const wrong: string[] = [];
    let posts = 0;
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const covered = method === 'post' && typeof op['x-required-scope'] === 'string';
        if (covered) posts++;
        const keys = ((op.parameters as { name: string; in: string }[] | undefined) ?? []).filter(
          (p) => p.in === 'header' && p.name === 'Idempotency-Key',
        );
        if (keys.length !== (covered ? 1 : 0)) wrong.push(`${method} ${path}: ${keys.length}`);
      }
    expect(wrong).toEqual([]);
    expect(posts).toBeGreaterThanOrEqual(29);
    // one source: no route declares the header itself (a new POST cannot forget it, nor declare it twice)
    const grep = await run('grep', [
      '-rlE',
      "Idempotency-Key'|IdempotentPost",
      join(__dirname, '../../src'),
    ]).catch((e: { stdout: string }) => e);
    expect(
      grep.stdout
        .split('\n')
        .filter(Boolean)
        .map((f) => f.slice(join(__dirname, '../../src').length + 1))
        .sort(),
    ).toEqual(['visitor/platform/idempotency.ts']);
  });

  it('the builder turns a 3.0 `nullable` into 3.1 unions (type, enum, $ref)', () => {
    expect(toOpenApi31({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(toOpenApi31({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(
      toOpenApi31({
        properties: { x: { $ref: '#/components/schemas/X', nullable: true, description: 'd' } },
      }),
    ).toEqual({
      properties: { x: { description: 'd', anyOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }] } },
    });
    expect(toOpenApi31({ type: 'integer', nullable: false })).toEqual({ type: 'integer' });
  });

  it('serves the visitor contract as YAML at {docs_url}/openapi.yaml', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/openapi.yaml' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/yaml/);
    expect(parse(res.body)).toEqual((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json());
  });

  it('renders the docs home (the references are Scalar pages: test/project/docs.e2e-spec.ts)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>Gatehouse API documentation');
    expect(res.body).toContain('href="/docs/visitor/"');
  });
});

describe('operator CLI', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, ['dist/src/cli.js', ...args], { env: { ...process.env, ...env } });

  it('--help lists the commands', async () => {
    const { stdout } = await cli(['--help']);
    for (const c of ['migrate', 'seed', 'support', 'config'])
      expect(stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect((await cli(['support', '--help'])).stdout).toContain(
      'gatehouse support request <request-id-or-ref>',
    );
  });

  it('an unknown command exits 2 with a message and the list', async () => {
    const err = await cli(['frobnicate']).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain("unknown command 'frobnicate'");
  });

  it('bad input is a usage error: exit 2 with a message', async () => {
    const err = await cli(['seed', '--scale', 'lots']).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('--scale must be a whole number');
  });

  it('migrate on a migrated database applies nothing and prints JSON', async () => {
    const db = await createTestDatabase();
    try {
      const { stdout } = await cli(['migrate'], { DATABASE_URL: db.url });
      expect(JSON.parse(stdout)).toEqual({ applied: [] });
    } finally {
      await db.drop();
    }
  });

  it('config --markdown prints the README configuration table', async () => {
    const { stdout } = await cli(['config', '--markdown']);
    expect(stdout).toMatch(/^\| Variable \| Meaning \| Default \|/);
    expect(stdout).toContain('`DATABASE_URL`');
  });
});
