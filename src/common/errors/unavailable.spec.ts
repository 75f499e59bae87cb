import { QueryFailedError } from 'typeorm';
import { unavailableFrom } from './unavailable';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('unavailableFrom', () => {
  it('maps lost or refused database connections to unavailable with Retry-After', () => {
    for (const e of [
      pgError('ECONNREFUSED'),
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('08006'),
      pgError('53300', 'sorry, too many clients already'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new QueryFailedError('SELECT 1', [], pgError('57P01')),
      new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')]),
    ]) {
      const mapped = unavailableFrom(e);
      expect(mapped?.code).toBe('unavailable');
      expect(mapped?.headers).toEqual({ 'Retry-After': '5' });
    }
  });

  it('leaves query faults alone (they stay internal_error)', () => {
    for (const e of [
      pgError('42P01', 'relation "x" does not exist'),
      new QueryFailedError('SELECT', [], pgError('23505')),
      new Error('boom'),
      null,
    ])
      expect(unavailableFrom(e)).toBeNull();
  });
});
