import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { runCli, spawnCli } from '../../support/cli';
import { createOrg, TestOrg } from '../../support/platform-fixtures';
import { StaffImport } from '../../../src/visitor/people/staff-import';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { fixtureMonth, MARCH } from './fixture-month';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('staff CSV import and timesheet export', () => {
  let t: TestApp;
  let pg: Client;
  let org: TestOrg;
  let key: string;
  let dir: string;
  const tenant = () => ({ organisationId: org.id, livemode: false });
  const importText = (text: string | Buffer, dryRun = false) =>
    t.app
      .get(StaffImport)
      .run(tenant(), Readable.from([Buffer.isBuffer(text) ? text : Buffer.from(text)]), { dryRun });
  /** The operator CLI (dist) on this test's database: exit status, stdout and stderr. */
  const cliRun = (...args: string[]) => spawnCli({ DATABASE_URL: t.db.url, NODE_ENV: 'test' }, ...args);
  const people = async () =>
    (
      await pg.query(
        `SELECT name, email, phone, department, job_title, employee_number, site_ids, can_host FROM visitor.person WHERE organisation_id = $1 AND livemode = false ORDER BY email`,
        [org.id],
      )
    ).rows;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    dir = mkdtempSync(join(tmpdir(), 'gh-csv-'));
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });
  beforeEach(async () => {
    org = await createOrg(t.app, 'pro', 2);
    key = await org.key();
  });

  it('a dry run reports every bad row with its line and column, and stores nothing', async () => {
    const csv = [
      'name,email,phone,department,job_title,site,employee_number',
      'Kofi Mensah,kofi@staff.test,0244123456,Ops,Guard,Site 1,E1',
      'No Email,,,,,,',
      'Bad Phone,bad@staff.test,12345,,,,',
      'Lost,lost@staff.test,,,,Nowhere;Site 2,',
      'Kofi Again,KOFI@staff.test,,,,,',
    ].join('\n');
    const res = await importText(csv, true);
    expect(res).toEqual({
      dry_run: true,
      rows: 5,
      created: 0,
      updated: 0,
      problems: [
        { line: 3, column: 'email', message: 'is required' },
        { line: 4, column: 'phone', message: expect.stringContaining('not a valid phone number') },
        { line: 5, column: 'site', message: 'no site "Nowhere" in this organisation and mode' },
        { line: 6, column: 'email', message: 'is also on line 2' },
      ],
    });
    expect(await people()).toEqual([]);
    // the CLI prints the same report and exits 1
    const file = join(dir, 'bad.csv');
    writeFileSync(file, csv);
    const run = cliRun('people', 'import', file, '--org', org.id, '--mode', 'test', '--dry-run');
    expect(run.status).toBe(1);
    expect((JSON.parse(run.stdout) as Json).problems.map((p: Json) => p.line)).toEqual([3, 4, 5, 6]);
    expect(await people()).toEqual([]);
  }, 120_000);

  it('the example file the README names (docs/examples/staff.csv) has the columns `people --help` lists and dry-runs clean', async () => {
    const example = join(__dirname, '../../../docs/examples/staff.csv');
    const header = readFileSync(example, 'utf8').split('\n')[0].split(',');
    const help = cliRun('people', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`columns ${header.join(', ')} (`);
    for (const attempt of [1, 2]) {
      const run = cliRun('people', 'import', example, '--org', org.id, '--mode', 'test', '--dry-run');
      expect({ attempt, status: run.status, stderr: run.stderr }).toEqual({ attempt, status: 0, stderr: '' });
      // a dry run's counts are what a real import would do
      expect(JSON.parse(run.stdout)).toEqual({
        dry_run: true,
        rows: 3,
        created: 3,
        updated: 0,
        problems: [],
      });
    }
    expect(await people()).toEqual([]);
  }, 240_000);

  it('a real import with one bad row changes nothing; a good one creates, a second updates by e-mail', async () => {
    const bad = 'name,email,phone\nAma,ama@staff.test,+233244000001\nBroken,broken@staff.test,999\n';
    const failed = await importText(bad);
    expect(failed.problems).toEqual([{ line: 3, column: 'phone', message: expect.any(String) }]);
    expect([failed.created, failed.updated]).toEqual([0, 0]);
    expect(await people()).toEqual([]);

    const site2 = org.sites.filter((s) => !s.livemode)[1].id;
    const good =
      '\uFEFFname,email,phone,department,job_title,site,employee_number\nAma Owusu,ama@staff.test,024 400 0001,Ops,Guard,Site 1;' +
      site2 +
      ',E7\n';
    const first = await importText(good);
    expect(first).toEqual({ dry_run: false, rows: 1, created: 1, updated: 0, problems: [] });
    const sites = org.sites.filter((s) => !s.livemode).map((s) => s.id);
    expect(await people()).toEqual([
      {
        name: 'Ama Owusu',
        email: 'ama@staff.test',
        phone: '+233244000001',
        department: 'Ops',
        job_title: 'Guard',
        employee_number: 'E7',
        site_ids: sites,
        can_host: false,
      },
    ]);
    const again = await importText(
      'email,name,department\nAMA@STAFF.TEST,Ama O.,Security\nyaw@staff.test,Yaw,\n',
    );
    expect([again.created, again.updated]).toEqual([1, 1]);
    expect((await people()).map((p) => [p.email, p.name, p.department])).toEqual([
      ['ama@staff.test', 'Ama O.', 'Security'],
      ['yaw@staff.test', 'Yaw', null],
    ]);
  });

  it('refuses a file that is not UTF-8, and unknown or missing columns', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('name,email\nJos'),
      Buffer.from([0xe9]),
      Buffer.from(',jose@staff.test\n'),
    ]);
    await expect(importText(latin1)).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ location: 'body.file', message: expect.stringContaining('not UTF-8') }],
    });
    await expect(importText('name,mail\nA,a@b.test\n')).rejects.toMatchObject({
      errors: [{ message: expect.stringContaining('unknown column "mail"') }],
    });
    await expect(importText('name\nA\n')).rejects.toMatchObject({
      errors: [{ message: expect.stringContaining('missing column "email"') }],
    });
    expect(await people()).toEqual([]);
  });

  it('the timesheet export (daily and summary) matches the hand-computed fixture column by column', async () => {
    await fixtureMonth(t.app, org, key);
    const daily = join(dir, `daily-${org.id}.csv`);
    expect(
      runCli(
        t.db.url,
        'attendance',
        'export',
        '--org',
        org.id,
        '--mode',
        'test',
        '--from',
        MARCH.from,
        '--to',
        MARCH.to,
        '--out',
        daily,
      ),
    ).toEqual({ file: daily, rows: 93 });
    const rows = parse(readFileSync(daily), { columns: true }) as Json[];
    expect(Object.keys(rows[0])).toEqual([
      'date',
      'employee_number',
      'name',
      'department',
      'site',
      'shift',
      'status',
      'first_in',
      'last_out',
      'worked_minutes',
      'late_minutes',
      'early_leave_minutes',
      'overtime_minutes',
      'leave_type',
      'flags',
    ]);
    const p1 = rows.filter((r) => r.employee_number === 'E001').slice(1, 7);
    const base = {
      employee_number: 'E001',
      name: 'Person 1',
      department: 'Ops',
      site: 'Site 1',
      shift: 'Day',
      leave_type: '',
    };
    expect(p1).toEqual([
      {
        ...base,
        date: '2026-03-02',
        status: 'present',
        first_in: '2026-03-02T09:05:00+00:00',
        last_out: '2026-03-02T17:00:00+00:00',
        worked_minutes: '475',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '0',
        flags: '',
      },
      {
        ...base,
        date: '2026-03-03',
        status: 'late',
        first_in: '2026-03-03T09:25:00+00:00',
        last_out: '2026-03-03T16:30:00+00:00',
        worked_minutes: '425',
        late_minutes: '25',
        early_leave_minutes: '30',
        overtime_minutes: '0',
        flags: '',
      },
      {
        ...base,
        date: '2026-03-04',
        status: 'present',
        first_in: '2026-03-04T08:55:00+00:00',
        last_out: '',
        worked_minutes: '0',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '0',
        flags: 'missing_clock_out',
      },
      {
        ...base,
        date: '2026-03-05',
        status: 'present',
        first_in: '2026-03-05T09:00:00+00:00',
        last_out: '2026-03-05T18:15:00+00:00',
        worked_minutes: '555',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '75',
        flags: 'offline;manual_edit',
      },
      {
        ...base,
        date: '2026-03-06',
        status: 'public_holiday',
        first_in: '',
        last_out: '',
        worked_minutes: '0',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '0',
        flags: '',
      },
      {
        ...base,
        date: '2026-03-07',
        status: 'present',
        first_in: '2026-03-07T10:00:00+00:00',
        last_out: '2026-03-07T12:00:00+00:00',
        worked_minutes: '120',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '0',
        flags: '',
      },
    ]);
    expect(rows.find((r) => r.employee_number === 'E002' && r.date === '2026-03-09')).toMatchObject({
      status: 'on_leave',
      leave_type: 'annual',
    });
    expect(rows.find((r) => r.employee_number === 'E003' && r.date === '2026-03-02')).toMatchObject({
      status: 'absent',
      first_in: '',
    });

    const summary = join(dir, `summary-${org.id}.csv`);
    runCli(
      t.db.url,
      'attendance',
      'export',
      '--org',
      org.id,
      '--mode',
      'test',
      '--from',
      MARCH.from,
      '--to',
      MARCH.to,
      '--summary',
      '--out',
      summary,
    );
    const s = parse(readFileSync(summary), { columns: true }) as Json[];
    const period = { department: 'Ops', from: MARCH.from, to: MARCH.to };
    expect(s).toEqual([
      {
        ...period,
        employee_number: 'E001',
        name: 'Person 1',
        present: '4',
        late: '1',
        absent: '17',
        on_leave: '0',
        public_holiday: '1',
        rest_day: '8',
        worked_minutes: '1575',
        late_minutes: '25',
        early_leave_minutes: '30',
        overtime_minutes: '75',
      },
      {
        ...period,
        employee_number: 'E002',
        name: 'Person 2',
        present: '0',
        late: '1',
        absent: '15',
        on_leave: '5',
        public_holiday: '1',
        rest_day: '9',
        worked_minutes: '469',
        late_minutes: '11',
        early_leave_minutes: '0',
        overtime_minutes: '0',
      },
      {
        ...period,
        employee_number: 'E003',
        name: 'Person 3',
        present: '1',
        late: '0',
        absent: '20',
        on_leave: '0',
        public_holiday: '1',
        rest_day: '9',
        worked_minutes: '0',
        late_minutes: '0',
        early_leave_minutes: '0',
        overtime_minutes: '0',
      },
    ]);
  });

  it('the console uploads a staff file (dry run, then for real) and downloads the timesheet', async () => {
    const email = `admin@${org.id.slice(4).toLowerCase()}.test`;
    const password = 'correct horse battery staple';
    await t.app
      .get(AccountsService)
      .create(org.id, { email, name: 'A', role: 'admin', password }, { type: 'operator', id: 'test' });
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const file = Buffer.from('name,email,employee_number\nKwesi,kwesi@staff.test,E9\n').toString('base64');
    const upload = (dry_run: boolean) =>
      t.app.inject({
        method: 'POST',
        url: '/console/people/import?mode=test',
        headers: { cookie },
        payload: { file_base64: file, dry_run },
      });
    expect((await upload(true)).json()).toMatchObject({ dry_run: true, created: 1, problems: [] });
    expect(await people()).toEqual([]);
    expect((await upload(false)).json()).toMatchObject({ dry_run: false, created: 1, updated: 0 });
    expect((await people()).map((p) => p.email)).toEqual(['kwesi@staff.test']);

    await fixtureMonth(t.app, org, key);
    const res = await t.app.inject({
      method: 'GET',
      url: `/console/attendance/export?mode=test&from=${MARCH.from}&to=${MARCH.to}&kind=summary`,
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const rows = parse(res.body, { columns: true }) as Json[];
    expect(rows.map((r) => [r.employee_number, r.present, r.late, r.absent])).toEqual([
      ['E001', '4', '1', '17'],
      ['E002', '0', '1', '15'],
      ['E003', '1', '0', '20'],
    ]);
    const tooLong = await t.app.inject({
      method: 'GET',
      url: '/console/attendance/export?mode=test&from=2026-01-01&to=2027-02-01',
      headers: { cookie },
    });
    expect([tooLong.statusCode, tooLong.json().errors[0].location]).toEqual([422, 'query.to']);
  });

  it('the CLI manages booking types, shifts, leave and holidays in one mode', async () => {
    const site = org.sites.find((x) => !x.livemode)!.id;
    const host = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/people',
        headers: {
          authorization: `Bearer ${key}`,
          'idempotency-key': randomUUID(),
          'content-type': 'application/json',
        },
        payload: { name: 'Host', email: 'host@cli.test' },
      })
    ).json().id;
    const saveType = (json: string) => [
      'booking-types',
      'save',
      '--org',
      org.id,
      '--mode',
      'test',
      '--json',
      json,
    ];
    const type = runCli(
      t.db.url,
      ...saveType(
        JSON.stringify({
          name: 'CLI tour',
          visit_type: 'meeting',
          site_id: site,
          host_ids: [host],
          duration_minutes: 45,
          weekly_hours: { mon: [{ start: '09:00', end: '12:00' }] },
        }),
      ),
    );
    expect(type).toMatchObject({
      name: 'CLI tour',
      duration_minutes: 45,
      capacity: 1,
      site_id: site,
      public_form: null,
    });
    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/booking-types/${type.id}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(read.json().id).toBe(type.id);
    const refused = cliRun(...saveType('{"name":"x"}'));
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('site_id');
    const shift = runCli(
      t.db.url,
      'attendance',
      'shift',
      '--org',
      org.id,
      '--mode',
      'test',
      '--json',
      JSON.stringify({
        name: 'Early',
        site_id: site,
        start_time: '06:00',
        end_time: '14:00',
        days_of_week: [1, 2, 3],
        person_ids: [host],
      }),
    );
    expect(shift).toMatchObject({
      name: 'Early',
      start_time: '06:00',
      end_time: '14:00',
      grace_minutes: 0,
      days_of_week: [1, 2, 3],
    });
    expect(
      runCli(
        t.db.url,
        'attendance',
        'leave',
        '--org',
        org.id,
        '--mode',
        'test',
        '--json',
        JSON.stringify({
          person_id: host,
          leave_type: 'sick',
          first_day: '2026-03-02',
          last_day: '2026-03-02',
        }),
      ).id,
    ).toMatch(/^leave_/);
    expect(
      runCli(
        t.db.url,
        'attendance',
        'holiday',
        '--org',
        org.id,
        '--mode',
        'test',
        '--json',
        JSON.stringify({
          day: '2026-03-03',
          name: 'Holiday',
        }),
      ).id,
    ).toMatch(/^holiday_/);
    const summary = await t.app.inject({
      method: 'GET',
      url: '/v1/attendance/summary?from=2026-03-02&to=2026-03-04',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(summary.json().data.map((d: Json) => [d.on_leave, d.public_holiday, d.absent])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
  }, 120_000); // a dozen CLI processes, each a full start: bounded, not timed
});
