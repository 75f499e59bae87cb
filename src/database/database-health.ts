import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ReadReplica, ReplicaState } from './read-replica';

@Injectable()
export class DatabaseHealth {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    private readonly readReplica: ReadReplica,
  ) {}

  async ping(): Promise<boolean> {
    try {
      await this.ds.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /** The read replica's state as the router sees it (re-checked every second while down); `off` when none is set. */
  replica(): ReplicaState {
    return this.readReplica.state;
  }
}
