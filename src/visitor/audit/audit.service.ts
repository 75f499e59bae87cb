import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { AuditRepository, AuditRow } from './audit.repository';

/** Who did it: an API key, a console account, an operator (CLI), or the system itself. */
export interface Actor {
  type: 'api_key' | 'oauth_token' | 'console_account' | 'operator' | 'system';
  id: string | null;
}

export interface AuditEntry {
  organisationId: string;
  /** null: organisation-wide (sign-ins, key management), shown in both modes' trails. */
  livemode: boolean | null;
  action: string;
  actor: Actor;
  target?: { type: string; id: string };
  data?: Record<string, unknown>;
  request?: FastifyRequest;
}

/** The most rows one grouped INSERT writes (12 parameters each), and the most such INSERTs in flight. */
const MAX_GROUP = 200;
const GROUP_WRITERS = 2;
/** How long `recordSoon` lets entries gather before it writes them (one INSERT for every call in the window). */
const SOON_MS = 100;

interface Waiting {
  row: AuditRow;
  resolve: () => void;
  reject: (e: Error) => void;
}

/** Keeps `write` in `set` while it is in flight. */
function track(set: Set<Promise<void>>, write: Promise<void>): void {
  set.add(write);
  void write.finally(() => set.delete(write));
}

/** Records key creation, revocation and use, sign-ins and admin actions. */
@Injectable()
export class AuditService implements OnApplicationShutdown {
  private readonly logger = new Logger('Audit');
  /** `recordSoon`'s entries not yet written, the timer that will write them, and its writes in flight. */
  private soonQueue: Waiting[] = [];
  private soon: NodeJS.Timeout | null = null;
  private readonly soonWrites = new Set<Promise<void>>();

  /** Entries of `recordGrouped` not yet written, and its writers in flight (each drains `waiting`). */
  private waiting: Waiting[] = [];
  private readonly groupWrites = new Set<Promise<void>>();

  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(e: AuditEntry, m: EntityManager | null = null): Promise<void> {
    await this.repo.insert(m, this.rowOf(e));
  }

  /**
   * `record` outside a transaction, for a path that audits every request (the tool server's calls): at most
   * GROUP_WRITERS INSERTs are in flight, and the entries that arrive meanwhile are written together in the next
   * one, so a burst of calls costs one round trip and one commit per group instead of one each. Resolves when the
   * entry's row is committed, as `record` does; a group that fails is written again row by row, so a bad entry
   * fails only its own caller.
   */
  recordGrouped(e: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ row: this.rowOf(e), resolve, reject });
      if (this.groupWrites.size < GROUP_WRITERS) track(this.groupWrites, this.writeWaiting());
    });
  }

  /**
   * `recordGrouped` without waiting: the entry is written with the others of the next SOON_MS (one INSERT), off
   * the caller's path, and at shutdown whatever is still waiting is written before the database closes. For an
   * entry that records a read (the tool server's read-only calls): a process that dies in between loses at most
   * that window's entries, as the request log does. A failure is logged, never thrown at the caller.
   */
  recordSoon(e: AuditEntry): void {
    this.soonQueue.push({
      row: this.rowOf(e),
      resolve: () => undefined,
      reject: (err) => this.logger.warn(`could not audit ${e.action}: ${err.message}`),
    });
    this.soon ??= setTimeout(() => {
      this.soon = null;
      this.writeSoon();
    }, SOON_MS);
  }

  /** Writes what `recordSoon` holds now (what arrives meanwhile waits for the next window). */
  private writeSoon(): void {
    const entries = this.soonQueue;
    this.soonQueue = [];
    if (entries.length === 0) return;
    track(
      this.soonWrites,
      (async () => {
        for (let i = 0; i < entries.length; i += MAX_GROUP)
          await this.writeGroup(entries.slice(i, i + MAX_GROUP));
      })(),
    );
  }

  /** After the HTTP server's last request (Nest closes it before this hook; the database closes after it). */
  async onApplicationShutdown(): Promise<void> {
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
    this.writeSoon();
    // A writer in flight drains `waiting` before it ends; with none, one is started for what is left.
    if (this.waiting.length > 0 && this.groupWrites.size === 0) track(this.groupWrites, this.writeWaiting());
    await Promise.all([...this.soonWrites, ...this.groupWrites]);
  }

  private async writeWaiting(): Promise<void> {
    while (this.waiting.length > 0) await this.writeGroup(this.waiting.splice(0, MAX_GROUP));
  }

  /** One INSERT for the group; if it fails, each row on its own, so a bad entry fails only its own caller. */
  private async writeGroup(group: Waiting[]): Promise<void> {
    try {
      await this.repo.insertMany(
        null,
        group.map((w) => w.row),
      );
      for (const w of group) w.resolve();
    } catch (e) {
      if (group.length === 1) group[0].reject(e as Error);
      else await Promise.all(group.map((w) => this.repo.insert(null, w.row).then(w.resolve, w.reject)));
    }
  }

  private rowOf(e: AuditEntry): AuditRow {
    return {
      id: newId('audit'),
      organisation_id: e.organisationId,
      livemode: e.livemode,
      action: e.action,
      actor_type: e.actor.type,
      actor_id: e.actor.id,
      target_type: e.target?.type ?? null,
      target_id: e.target?.id ?? null,
      ip: e.request?.ip ?? null,
      request_id: e.request ? String(e.request.id) : null,
      data: e.data ?? {},
      created_at: this.clock.tick(),
    };
  }
}
