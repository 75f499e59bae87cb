import { redactCredential } from './requests.page';
import { chosenEvents } from '../webhooks/webhooks.page';
import type { RequestLogEntry } from '../../ops/request-log/request-log.entry';
import { matches } from '../../ops/request-log/request-log.service';

const entry = (o: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  requestId: 'req_0000000000000000000000',
  errorRef: null,
  receivedAt: new Date('2026-11-26T10:00:00Z'),
  surface: 'visitor',
  method: 'GET',
  path: '/v1/visits/visit_x',
  status: 404,
  errorCode: 'not_found',
  durationMs: 3,
  clientIp: '127.0.0.1',
  organisationId: 'org_a',
  credentialId: 'key_AbCdEfGh',
  livemode: false,
  ...o,
});
const day = { from: new Date('2026-11-26T00:00:00Z'), to: new Date('2026-11-26T23:59:59Z') };

describe('request log search filter', () => {
  it('keeps only the organisation, surface and mode asked for', () => {
    expect(matches(entry(), { ...day, organisationId: 'org_a', surface: 'visitor', livemode: false })).toBe(
      true,
    );
    expect(matches(entry(), { ...day, organisationId: 'org_b' })).toBe(false);
    expect(matches(entry({ surface: 'console' }), { ...day, surface: 'visitor' })).toBe(false);
    expect(matches(entry({ livemode: true }), { ...day, livemode: false })).toBe(false);
    expect(matches(entry({ organisationId: null }), { ...day })).toBe(true);
  });

  it('filters by status class, failure, exact status, path, credential prefix and time', () => {
    expect(matches(entry(), { ...day, status: '4xx' })).toBe(true);
    expect(matches(entry(), { ...day, status: '2xx' })).toBe(false);
    expect(matches(entry(), { ...day, status: 'failed' })).toBe(true);
    expect(matches(entry({ status: 201 }), { ...day, status: 'failed' })).toBe(false);
    expect(matches(entry(), { ...day, status: '404' })).toBe(true);
    expect(matches(entry(), { ...day, status: '422' })).toBe(false);
    expect(matches(entry(), { ...day, path: '/v1/visits/' })).toBe(true);
    expect(matches(entry(), { ...day, path: '/v1/people' })).toBe(false);
    expect(matches(entry(), { ...day, credential: 'key_AbCd' })).toBe(true);
    expect(matches(entry(), { ...day, credential: 'key_Zz' })).toBe(false);
    expect(matches(entry({ credentialId: null }), { ...day, credential: 'key_' })).toBe(false);
    expect(matches(entry({ receivedAt: new Date('2026-11-27T00:00:00Z') }), day)).toBe(false);
  });

  it('shows a credential as its prefix and four characters', () => {
    expect(redactCredential('key_AbCdEfGhIj')).toBe('key_AbCd…');
    expect(redactCredential(null)).toBeNull();
  });
});

describe('webhook event picker', () => {
  it('reads one checkbox per type, or every type', () => {
    expect(chosenEvents({ 'ev:visit.created': 'on', 'ev:pass.sent': 'on', 'ev:nope': 'on' })).toEqual([
      'visit.created',
      'pass.sent',
    ]);
    expect(chosenEvents({ all: 'on', 'ev:visit.created': 'on' })).toEqual(['*']);
    expect(chosenEvents({})).toEqual([]);
  });
});
