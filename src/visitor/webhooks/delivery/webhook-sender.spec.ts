import { checkedDestination } from './destination';
import { sendWebhook } from './webhook-sender';

describe('sendWebhook', () => {
  it('answers a request Node refuses to build as the attempt’s failure, at once and without a connection', async () => {
    // Port 1 on loopback: nothing listens there, and the request is refused before any connection is tried.
    const to = checkedDestination('http://127.0.0.1:1/hook', { allowLocalTargets: true });
    const result = await sendWebhook(to, '{}', { 'webhook-id': 'evt_1\nInjected: yes' }, 10_000);
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: expect.stringMatching(/^ERR_INVALID_CHAR: Invalid character in header content/),
    });
  });
});
