import { Webhook } from 'standardwebhooks';
import { newSigningSecret, sign, signatureHeader, signingKey } from './signature';

describe('Standard Webhooks signing', () => {
  it('matches the reference vector', () => {
    expect(
      sign(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('the reference vector verifies with the standardwebhooks package, at its own timestamp only', () => {
    const vector = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    };
    const headers = {
      'webhook-id': vector.id,
      'webhook-timestamp': String(vector.timestamp),
      'webhook-signature': signatureHeader([vector.secret], vector.id, vector.timestamp, vector.body),
    };
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    // The package checks the timestamp against Date.now() (5 minutes either way): today the vector is too old…
    expect(() => new Webhook(vector.secret).verify(vector.body, headers)).toThrow(/timestamp/i);
    // …and at the vector's own time (plus a minute) it verifies, and a changed body or id does not.
    jest.useFakeTimers({ now: (vector.timestamp + 60) * 1000 });
    try {
      expect(new Webhook(vector.secret).verify(vector.body, headers)).toEqual({ test: 2432232314 });
      expect(() => new Webhook(vector.secret).verify('{"test": 2432232315}', headers)).toThrow();
      expect(() =>
        new Webhook(vector.secret).verify(vector.body, { ...headers, 'webhook-id': 'msg_other' }),
      ).toThrow();
    } finally {
      jest.useRealTimers();
    }
  });

  it('is accepted by the standardwebhooks package, with either secret during rotation', () => {
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'visit.created' });
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureHeader([newSecret, oldSecret], 'evt_1', ts, body),
    };
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('signs the same with a decoded key as with the secret (the worker decodes each secret once per claim)', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const other = newSigningSecret();
    expect(sign(signingKey(secret), 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(signatureHeader([signingKey(secret), signingKey(other)], 'evt_1', 1700000000, '{}')).toBe(
      signatureHeader([secret, other], 'evt_1', 1700000000, '{}'),
    );
  });
});
