import { Webhook } from 'standardwebhooks';
import { newSigningSecret, sign, signatureHeader } from './signature';

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
});
