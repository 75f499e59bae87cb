import { Processor } from '@nestjs/bullmq';
import {
  applyDecorators,
  DynamicModule,
  ForwardReference,
  Provider,
  SetMetadata,
  Type,
} from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { JobKind, JobName } from './job-queue';
import { jobKindToken } from './queue.module';

const JOB_PROCESSOR = 'gatehouse:job-processor';

/**
 * A job whose worker died (its lock, renewed every half of LOCK_MS, lapses) is taken back by another worker's stall
 * check, run every STALLED_CHECK_MS: within 15 s of the death instead of BullMQ's 30 s + 30 s. Until then a
 * sweeper's re-add of the same job id is a no-op (a pass alone in its job; one in a merged job is added anew), so
 * this bounds how long a dead worker's pass waits. A job taken back while its first run still goes on (an event
 * loop blocked for LOCK_MS) is harmless: each job's work is claimed in PostgreSQL first (a pass `FOR UPDATE SKIP
 * LOCKED` while pending, a delivery's `locked_until`).
 */
const LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5_000;

/**
 * Declares the class (a `ResilientWorkerHost<K>`) as the handler of the jobs named `kind.name`: BullMQ runs its
 * `process` for each job of the kind's queue.
 */
export const JobProcessor = <K extends JobName>(kind: JobKind<K>): ClassDecorator =>
  applyDecorators(
    Processor(kind.queue, { lockDuration: LOCK_MS, stalledInterval: STALLED_CHECK_MS }),
    SetMetadata(JOB_PROCESSOR, kind.name),
  );

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;

/**
 * The job names a module graph registers (`QueueModule.forJobs`) and the handlers it provides (`@JobProcessor`),
 * read from the modules' declarations: nothing is instantiated, nothing connects.
 */
function declaredJobs(root: ModuleRef): { registered: Set<string>; handlers: string[] } {
  const registered = new Set<string>();
  const handlers: string[] = [];
  const seen = new Set<unknown>();
  const prefix = jobKindToken('');
  const visit = (m: ModuleRef | undefined): void => {
    if (!m || seen.has(m) || m instanceof Promise) return;
    seen.add(m);
    if ('forwardRef' in m) return visit(m.forwardRef() as ModuleRef);
    const dynamic = 'module' in m ? m : null;
    const cls = dynamic ? dynamic.module : (m as Type);
    const list = <T>(key: string): T[] => [
      ...((Reflect.getMetadata(key, cls) as T[] | undefined) ?? []),
      ...(((dynamic as Record<string, unknown> | null)?.[key] as T[] | undefined) ?? []),
    ];
    for (const p of list<Provider>(MODULE_METADATA.PROVIDERS)) {
      const token = typeof p === 'function' ? p : p.provide;
      if (typeof token === 'string' && token.startsWith(prefix)) registered.add(token.slice(prefix.length));
      const type = typeof p === 'function' ? p : 'useClass' in p ? p.useClass : null;
      const handles = type ? (Reflect.getMetadata(JOB_PROCESSOR, type) as string | undefined) : undefined;
      if (handles) handlers.push(handles);
    }
    for (const i of list<ModuleRef>(MODULE_METADATA.IMPORTS)) visit(i);
  };
  visit(root);
  return { registered, handlers };
}

/**
 * Refuses to start a worker whose modules add a job that no `@JobProcessor` handles (or that two handle): such a
 * job would wait in Redis forever. Checked on the module graph before Nest builds it (`AppModule.forRoot`), so
 * the refusal opens no connection.
 */
export function assertJobsHandled(root: ModuleRef): void {
  const { registered, handlers } = declaredJobs(root);
  const problems = [
    ...[...registered]
      .filter((n) => !handlers.includes(n))
      .map((n) => `job ${n} has no handler (a @JobProcessor class)`),
    ...[...new Set(handlers)]
      .filter((n) => handlers.indexOf(n) !== handlers.lastIndexOf(n))
      .map((n) => `job ${n} has more than one handler`),
  ];
  if (problems.length) throw new Error(`the worker refuses to start: ${problems.join('; ')}`);
}
