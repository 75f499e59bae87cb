import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../src');
const MIGRATIONS = resolve(__dirname, '../../migrations');

/** Every file under `dir` ending in `.ts` (specs excluded), src-relative path → text. */
function sources(dir: string, root = dir): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) for (const [k, v] of sources(p, root)) out.set(k, v);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts'))
      out.set(relative(root, p), readFileSync(p, 'utf8'));
  }
  return out;
}

/** The views the migrations create (`schema.view` → the statement's text after AS). */
function migratedViews(): Map<string, string> {
  const views = new Map<string, string>();
  for (const text of sources(MIGRATIONS).values())
    for (const m of text.matchAll(/CREATE (?:OR REPLACE )?VIEW ([a-z_]+\.[a-z_]+) AS\b([^`]*)/g))
      views.set(m[1], m[2]);
  return views;
}

/** The tables the migrations create (`schema.table`). */
function migratedTables(): Set<string> {
  const tables = new Set<string>();
  for (const text of sources(MIGRATIONS).values())
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+\.[a-z_]+)/g)) tables.add(m[1]);
  return tables;
}

/**
 * The domain a file belongs to: `visitor/<domain>` for a visitor domain, else the top folder of src/ (`oauth`,
 * `ops`, `seed`, `content`, …; `visitor` for the visitor surface's own files: its modules, CLI commands, seeders).
 */
const domainOf = (file: string) => {
  const parts = file.split('/');
  return parts[0] === 'visitor' && parts.length > 2 ? `visitor/${parts[1]}` : parts[0];
};

/**
 * Who owns each table: only files of that domain name it in SQL (or map it as an entity). Every other domain
 * reaches its rows through the owner's exported service, passing its UnitOfWork when the call must share a
 * transaction. Every table the migrations create must be listed (a new table gets an owner here).
 */
const OWNER: Record<string, readonly string[]> = {
  'visitor/organisations': ['visitor.organisation', 'visitor.site', 'visitor.gate'],
  'visitor/accounts': ['visitor.console_account', 'visitor.console_session'],
  'visitor/api-keys': ['visitor.api_key', 'visitor.api_key_use_day', 'visitor.custom_scope'],
  'visitor/attendance': [
    'visitor.shift',
    'visitor.shift_assignment',
    'visitor.attendance_event',
    'visitor.attendance_leave',
    'visitor.attendance_consent',
    'visitor.public_holiday',
  ],
  'visitor/audit': ['visitor.audit_event'],
  'visitor/booking-types': ['visitor.booking_type', 'visitor.booking_slot'],
  'visitor/bookings': ['visitor.booking'],
  'visitor/deliveries': ['visitor.delivery'],
  'visitor/events': ['visitor.event'],
  'visitor/files': ['visitor.file'],
  'visitor/forms': ['visitor.form'],
  'visitor/messages': ['visitor.message'],
  'visitor/people': ['visitor.person'],
  'visitor/platform': ['visitor.idempotency_key'],
  'visitor/rollcalls': ['visitor.rollcall', 'visitor.rollcall_person'],
  // visits own the visit, the visitor record (matched by phone when a visit is created) and the visit's passes
  'visitor/visits': ['visitor.visit', 'visitor.visitor', 'visitor.visit_pass'],
  'visitor/visit-types': ['visitor.visit_type'],
  'visitor/watchlist': ['visitor.watchlist_entry', 'visitor.watchlist_name', 'visitor.watchlist_match'],
  'visitor/webhooks': ['visitor.webhook_endpoint', 'visitor.webhook_delivery', 'visitor.webhook_attempt'],
  // the user's approvals of OAuth clients and their connections are the connected-apps domain's; the
  // authorization server's engine rows (oidc-provider models) and its clients are oauth/'s
  'visitor/connected-apps': ['oauth.approval', 'oauth.connection'],
  oauth: ['oauth.client', 'oauth.model'],
  // shared infrastructure: the request log is ops/'s, the seed marker the seed runner's
  ops: ['ops.request_log', 'ops.request_log_batch'],
  seed: ['ops.seed_run'],
};

/**
 * Read-only views an owner publishes in the `published` schema for statements of other domains that must stay one
 * round trip (a hot path, a report, a roll call list): view → owning domain. Any domain may SELECT from one, no
 * file writes to one, a view reads only its owner's tables, and every view the migrations create there is listed.
 */
const PUBLISHED: Record<string, string> = {
  'published.events_body': 'visitor/events',
  'published.forms_versions': 'visitor/forms',
  'published.organisations_gates': 'visitor/organisations',
  'published.organisations_names': 'visitor/organisations',
  'published.organisations_plan': 'visitor/organisations',
  'published.organisations_sites': 'visitor/organisations',
  'published.people_hosts': 'visitor/people',
  'published.people_staff': 'visitor/people',
  'published.visit_types_rules': 'visitor/visit-types',
  'published.visits_checked_in': 'visitor/visits',
  'published.watchlist_tenants': 'visitor/watchlist',
};

/**
 * The public content API (`/public/v1`) is a read-only surface whose resources are views over one shared schema
 * (a campaign's stats read petitions, posts read actors and groups): its tables are owned by the content area as
 * a whole, written only by its seeder.
 */
const ownerOf = (table: string): string | undefined =>
  table.startsWith('content.') ? 'content' : Object.keys(OWNER).find((d) => OWNER[d].includes(table));

/**
 * Where a file of one domain still names another domain's table. This list may only shrink: the test fails on a
 * violation not listed here and on a listed one that no longer exists (so the list stays true). Each entry says
 * why it is still there.
 */
const ALLOWED: readonly string[] = [];

/** The `schema.table` names a source file uses: in SQL text and in `@Entity({ schema, name })` mappings. */
function tablesNamedIn(text: string, known: Set<string>): Set<string> {
  // comments do not run: a table named in prose is no use of it
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const named = new Set<string>();
  for (const m of code.matchAll(/\b([a-z_]+)\.([a-z_]+)\b/g)) {
    const t = `${m[1]}.${m[2]}`;
    if (known.has(t)) named.add(t);
  }
  for (const m of code.matchAll(/@Entity\(\{\s*schema:\s*'([a-z_]+)',\s*name:\s*'([a-z_]+)'/g))
    named.add(`${m[1]}.${m[2]}`);
  return named;
}

describe('table ownership in src/', () => {
  const tables = migratedTables();
  const files = sources(SRC);

  it('every table the migrations create has exactly one owning domain', () => {
    const owners = Object.values(OWNER).flat();
    expect(owners.filter((t, i) => owners.indexOf(t) !== i)).toEqual([]);
    expect([...tables].filter((t) => !ownerOf(t))).toEqual([]);
    expect(owners.filter((t) => !tables.has(t))).toEqual([]);
  });

  it("no file names another domain's table (beyond the shrinking allow-list)", () => {
    const violations: string[] = [];
    for (const [file, text] of files) {
      const from = domainOf(file);
      for (const t of tablesNamedIn(text, tables)) if (ownerOf(t) !== from) violations.push(`${file} → ${t}`);
    }
    violations.sort();
    expect(violations.filter((v) => !ALLOWED.includes(v))).toEqual([]);
    // a fixed violation leaves the list: remove its entry
    expect(ALLOWED.filter((v) => !violations.includes(v))).toEqual([]);
  });

  it("every published view is listed with its owner and reads only its owner's tables", () => {
    const views = migratedViews();
    const published = [...views.keys()].filter((v) => v.startsWith('published.'));
    expect(published.filter((v) => !PUBLISHED[v])).toEqual([]);
    expect(Object.keys(PUBLISHED).filter((v) => !views.has(v))).toEqual([]);
    expect(Object.values(PUBLISHED).filter((d) => !OWNER[d])).toEqual([]);
    const foreign = published.flatMap((v) =>
      [...tablesNamedIn(views.get(v)!, tables)]
        .filter((t) => ownerOf(t) !== PUBLISHED[v])
        .map((t) => `${v} → ${t}`),
    );
    expect(foreign).toEqual([]);
  });

  it('no file writes to a published view', () => {
    const writes: string[] = [];
    for (const [file, text] of files)
      for (const m of text.matchAll(
        /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|MERGE\s+INTO)\s+published\.\w+/gi,
      ))
        writes.push(`${file}: ${m[0]}`);
    expect(writes).toEqual([]);
    // and every view a file reads is a published one (a typo or an unpublished view fails here)
    const unknown: string[] = [];
    for (const [file, text] of files)
      for (const m of text.matchAll(/\bpublished\.[a-z_]+/g))
        if (!(m[0] in PUBLISHED)) unknown.push(`${file}: ${m[0]}`);
    expect(unknown).toEqual([]);
  });

  it('no module exports a repository (other domains call its service)', () => {
    const exported: string[] = [];
    for (const [file, text] of files) {
      if (!file.endsWith('.module.ts')) continue;
      for (const m of text.matchAll(/exports:\s*\[([^\]]*)\]/g)) {
        // `...NAME` spreads a const array declared in the same file
        const names = m[1].replace(/\.\.\.(\w+)/g, (_, c: string) => {
          const decl = new RegExp(`const ${c}\\b[^=]*=\\s*\\[([^\\]]*)\\]`).exec(text);
          return decl ? decl[1] : '';
        });
        for (const n of names.match(/\w+/g) ?? [])
          if (n.endsWith('Repository')) exported.push(`${file}: ${n}`);
      }
    }
    expect(exported).toEqual([]);
  });

  /**
   * Where a file still imports another domain's repository (types included: a row type is the owner's too). The
   * visitor surface's CLI commands and seeders (`visitor/*.ts`) wire services by hand and are left out while they
   * move into Nest DI. May only shrink.
   */
  const ALLOWED_REPOSITORY_IMPORTS: readonly string[] = [];

  it("no domain imports another domain's repository: console and OAuth call services with a ConsoleCaller", () => {
    const found: string[] = [];
    for (const [file, text] of files) {
      if (domainOf(file) === 'visitor' || file.startsWith('cli/')) continue;
      for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+\.repository)'/gms)) {
        const target = relative(SRC, resolve(SRC, dirname(file), m[1]));
        if (domainOf(`${target}.ts`) !== domainOf(file)) found.push(`${file} → ${target}`);
      }
    }
    expect(found.filter((v) => !ALLOWED_REPOSITORY_IMPORTS.includes(v))).toEqual([]);
    expect(ALLOWED_REPOSITORY_IMPORTS.filter((v) => !found.includes(v))).toEqual([]);
  });
});
