import { DataSource } from 'typeorm';
import { bootServiceContext, ServiceContext } from '../../harness';
import { AuditEntry, AuditService } from '../../../src/visitor/audit/audit.service';

/**
 * AuditService.recordGrouped (the tool server audits every call with it): concurrent entries share INSERTs, each
 * caller's promise settles only once its own row is committed, and a bad entry fails only its own caller.
 */
describe('AuditService.recordGrouped', () => {
  let t: ServiceContext;
  let ds: DataSource;
  let audit: AuditService;
  beforeAll(async () => {
    t = await bootServiceContext({ env: { RUN_WORKER: 'false' } });
    ds = t.app.get(DataSource);
    audit = t.app.get(AuditService);
  });
  afterAll(async () => {
    await t?.close();
  });

  const entry = (organisationId: string, n: number): AuditEntry => ({
    organisationId,
    livemode: false,
    action: 'mcp.tool_called',
    actor: { type: 'api_key', id: 'key_grouped' },
    data: { n },
  });
  const written = async (organisationId: string) =>
    (
      (await ds.query(
        `SELECT data->>'n' AS n FROM visitor.audit_event WHERE organisation_id = $1 ORDER BY (data->>'n')::int`,
        [organisationId],
      )) as { n: string }[]
    ).map((r) => Number(r.n));

  it('writes every one of many concurrent entries, each committed when its promise resolves', async () => {
    const org = 'org_grouped_all';
    const seen: number[][] = [];
    await Promise.all(
      Array.from({ length: 60 }, (_, n) =>
        audit.recordGrouped(entry(org, n)).then(async () => {
          // Read on another connection: the row is committed, not only written.
          const rows = (await ds.query(
            `SELECT 1 FROM visitor.audit_event WHERE organisation_id = $1 AND data->>'n' = $2`,
            [org, String(n)],
          )) as unknown[];
          seen.push([n, rows.length]);
        }),
      ),
    );
    expect(seen.filter(([, count]) => count !== 1)).toEqual([]);
    expect(await written(org)).toEqual(Array.from({ length: 60 }, (_, n) => n));
  });

  it('fails only the caller whose entry cannot be written; the others in its group are written', async () => {
    const org = 'org_grouped_bad';
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, n) =>
        // action is NOT NULL: entry 5 is refused by PostgreSQL.
        audit.recordGrouped(
          n === 5 ? { ...entry(org, n), action: null as unknown as string } : entry(org, n),
        ),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(
      Array.from({ length: 12 }, (_, n) => (n === 5 ? 'rejected' : 'fulfilled')),
    );
    expect(await written(org)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]);
  });

  it('recordSoon writes entries off the caller’s path, and what still waits at shutdown before the hook returns', async () => {
    const org = 'org_soon';
    for (let n = 0; n < 30; n++) audit.recordSoon(entry(org, n));
    // nothing is written on the caller's path
    expect(await written(org)).toEqual([]);
    await audit.onApplicationShutdown();
    expect(await written(org)).toEqual(Array.from({ length: 30 }, (_, n) => n));
  });

  it('at shutdown, grouped entries still waiting or in flight are written before the hook returns', async () => {
    const org = 'org_grouped_shutdown';
    // 450 entries: more than the writers' groups in flight, so some still wait when the hook is called
    const pending = Array.from({ length: 450 }, (_, n) => audit.recordGrouped(entry(org, n)));
    await audit.onApplicationShutdown();
    expect(await written(org)).toEqual(Array.from({ length: 450 }, (_, n) => n));
    await Promise.all(pending);
  });
});
