import { isUnavailable } from './read-replica';

const failure = (props: Record<string, unknown>, message = 'failed') =>
  Object.assign(new Error(message), props) as Error;

describe('isUnavailable: which replica failures mark it down', () => {
  it.each([
    ['connection refused', failure({ code: 'ECONNREFUSED' })],
    ['a reset socket', failure({ code: 'ECONNRESET' })],
    ['a shutdown (57P01)', failure({ code: '57P01' }, 'terminating connection due to administrator command')],
    ['a crashed server (57P02)', failure({ code: '57P02' })],
    ['a server starting up (57P03)', failure({ code: '57P03' }, 'the database system is starting up')],
    ['a connection exception (class 08), wrapped by TypeORM', failure({ driverError: { code: '08006' } })],
    ['a terminated connection', failure({}, 'Connection terminated unexpectedly')],
    ['a connect timeout', failure({}, 'timeout exceeded when trying to connect')],
    ['a silent server', failure({}, 'Query read timeout')],
  ])('%s: yes', (_, e) => expect(isUnavailable(e)).toBe(true));

  it.each([
    ['a missing column (42703)', failure({ code: '42703' }, 'column "x" does not exist')],
    [
      'a recovery conflict (40001)',
      failure({ code: '40001' }, 'canceling statement due to conflict with recovery'),
    ],
    ['bad input (22P02)', failure({ code: '22P02' })],
    ['not an error', 'nope'],
  ])('%s: no (run again on the primary, the replica still serves)', (_, e) =>
    expect(isUnavailable(e)).toBe(false),
  );
});
