import type { INestApplicationContext } from '@nestjs/common';

export interface SeedOptions {
  /** 1 is the small demo set; larger values grow every generated table roughly linearly. */
  scale: number;
  log: (line: string) => void;
  /** Progress of a long step (the CLI draws a bar); seeders may ignore it. */
  progress?: (label: string, total: number) => { tick(n?: number): void; done(): void };
  /** Receives the demo sign-in and key when the visitor demo is created (main.ts prints them in its block). */
  onDemoAccess?: (access: DemoAccess) => void;
}

/** The demo organisation's console sign-in and test-mode key, and ids to try the API with. */
export interface DemoAccess {
  organisation_id: string;
  email: string;
  password: string;
  key: string;
  site_id: string | null;
  gate_id: string | null;
  host_id: string | null;
}

/**
 * A seeder fills one area with deterministic demo data. Seeders live in `*.seeder.ts` files next to their
 * domain and are found by file name (src/seed/seed-runner.ts); `order` decides who runs first. A seeder runs in
 * the application's object graph (`app`: the server's on a first start, the CLI's for `gatehouse seed`) and takes
 * its services and DataSource from it (`app.get(…)`), so what it creates through services records events and
 * reaches their subscribers as a request would.
 */
export interface Seeder {
  name: string;
  order: number;
  run(app: Pick<INestApplicationContext, 'get'>, opts: SeedOptions): Promise<Record<string, number>>;
}

export function isSeeder(v: unknown): v is Seeder {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Seeder).run === 'function' &&
    typeof (v as Seeder).name === 'string'
  );
}
