import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../src');

/** src-relative file (without .ts) → the src-relative files it imports (relative imports only). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')) {
        const text = readFileSync(p, 'utf8');
        const deps = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms)]
          // type-only imports vanish at run time but still shape the layers: they count too
          .map((m) => relative(SRC, resolve(dirname(p), m[1])));
        graph.set(relative(SRC, p).replace(/\.ts$/, ''), deps);
      }
    }
  };
  walk(SRC);
  return graph;
}

/** Strongly connected components with more than one file (Tarjan): the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** The folder a visitor file belongs to: `visitor/<domain>`, or `visitor` for the surface's own files. */
const domainOf = (file: string) => {
  const parts = file.split('/');
  return parts[0] === 'visitor' && parts.length > 2 ? `visitor/${parts[1]}` : parts[0];
};

/**
 * The layers of the visitor area, top to bottom (docs/architecture.md): a file may import only its own folder and
 * the folders of lower layers. `visitor` (the surface: its module, worker module, CLI command, demo seeder)
 * composes the domains; webhooks subscribe to events; every domain records through events; platform is the floor.
 */
const LAYER: Record<string, number> = {
  visitor: 5,
  'visitor/test-helpers': 4.5,
  'visitor/visitors': 4,
  'visitor/bookings': 3.5,
  'visitor/visits': 3,
  'visitor/booking-types': 2.5,
  'visitor/attendance': 2.5,
  'visitor/rollcalls': 2.7,
  'visitor/deliveries': 2.5,
  'visitor/watchlist': 2.5,
  'visitor/people': 2,
  'visitor/visit-types': 2,
  'visitor/api-keys': 2,
  'visitor/connected-apps': 2.5,
  'visitor/accounts': 1.8,
  'visitor/openapi': 2,
  'visitor/webhooks': 2,
  'visitor/organisations': 1.5,
  'visitor/audit': 1.2,
  'visitor/forms': 1.2,
  'visitor/messages': 1.2,
  'visitor/files': 1.2,
  'visitor/event-stream': 1.1,
  'visitor/events': 1,
  'visitor/platform': 0,
};

describe('import structure of src/', () => {
  const graph = importGraph();

  it('has no import cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('every visitor folder has a layer (a new domain folder must be placed)', () => {
    const folders = new Set([...graph.keys()].filter((f) => f.startsWith('visitor/')).map(domainOf));
    expect([...folders].filter((f) => !(f in LAYER))).toEqual([]);
  });

  it('inside visitor/ nothing imports upward, nothing imports console/, content/ or webhooks/ from a domain', () => {
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      if (!file.startsWith('visitor/')) continue;
      const from = domainOf(file);
      for (const dep of deps) {
        const to = domainOf(dep);
        if (to === 'console' || to === 'content') bad.push(`${file} → ${dep}`);
        else if (to.startsWith('visitor') && to !== from) {
          if ((LAYER[to] ?? Infinity) >= (LAYER[from] ?? -Infinity)) bad.push(`${file} → ${dep}`);
          else if (to === 'visitor/webhooks' && from !== 'visitor') bad.push(`${file} → ${dep}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('infrastructure imports no surface (docs/ gets what it documents from the surfaces, e.g. the scope words)', () => {
    const INFRA = ['config', 'database', 'redis', 'common', 'docs', 'pages', 'health', 'ops'];
    const SURFACES = ['visitor', 'content', 'console', 'oauth'];
    const bad = [...graph].flatMap(([file, deps]) =>
      INFRA.includes(file.split('/')[0])
        ? deps.filter((d) => SURFACES.includes(d.split('/')[0])).map((d) => `${file} → ${d}`)
        : [],
    );
    expect(bad).toEqual([]);
  });

  it('the public content API and the visitor API do not import each other', () => {
    const bad = [...graph].flatMap(([file, deps]) =>
      deps
        .filter((d) => {
          const [a, b] = [file.split('/')[0], d.split('/')[0]];
          return (a === 'content' && b === 'visitor') || (a === 'visitor' && b === 'content');
        })
        .map((d) => `${file} → ${d}`),
    );
    expect(bad).toEqual([]);
  });
});
