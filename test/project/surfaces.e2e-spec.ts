import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModulesContainer } from '@nestjs/core';
import { bootTestApp, TestApp } from '../harness';

const SRC = resolve(__dirname, '../../src');

/** Every class exported by a file under `src/<area>/` (the area's modules, controllers, services, guards…). */
function classesUnder(area: string): Set<unknown> {
  const found = new Set<unknown>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts'))
        for (const v of Object.values(require(p) as Record<string, unknown>))
          if (typeof v === 'function') found.add(v);
    }
  };
  walk(join(SRC, area));
  return found;
}

/** What the application's container holds: module classes and the classes of their providers and controllers. */
function loaded(t: TestApp): { modules: string[]; classes: Set<unknown> } {
  const modules: string[] = [];
  const classes = new Set<unknown>();
  for (const m of t.app.get(ModulesContainer).values()) {
    modules.push(m.metatype.name);
    classes.add(m.metatype);
    for (const w of [...m.providers.values(), ...m.controllers.values(), ...m.injectables.values()])
      if (w.metatype) classes.add(w.metatype);
  }
  return { modules, classes };
}

describe('SURFACES chooses what a process loads', () => {
  const visitorClasses = classesUnder('visitor');

  it('SURFACES=public (with RUN_WORKER on) loads no visitor domain, no BullMQ queue and no visitor guard', async () => {
    const t = await bootTestApp({ env: { SURFACES: 'public', RUN_WORKER: 'true' } });
    try {
      const { modules, classes } = loaded(t);
      const visitor = [...classes]
        .filter((c) => visitorClasses.has(c))
        .map((c) => (c as { name: string }).name);
      expect(visitor).toEqual([]);
      expect(modules.filter((m) => /bull|queue/i.test(m))).toEqual([]);
      // The public API serves; /v1 does not exist in this process.
      expect((await t.app.inject({ method: 'GET', url: '/public/v1/stats' })).statusCode).toBe(200);
      const v1 = await t.app.inject({ method: 'GET', url: '/v1/organisation' });
      expect(v1.statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('SURFACES=visitor loads the visitor domains, their queues and the guard chain', async () => {
    const t = await bootTestApp({ env: { SURFACES: 'visitor', RUN_WORKER: 'false' } });
    try {
      const { modules } = loaded(t);
      expect(modules).toEqual(
        expect.arrayContaining([
          'VisitorModule',
          'VisitsModule',
          'WebhooksModule',
          'EventsModule',
          'QueueModule',
        ]),
      );
      expect(modules).not.toContain('ContentModule');
      expect(modules).not.toContain('VisitorWorkerModule');
      const res = await t.app.inject({ method: 'GET', url: '/v1/organisation' });
      expect(res.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
