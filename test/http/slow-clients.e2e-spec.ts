import { AddressInfo, connect, Socket } from 'node:net';
import { bootTestApp, TestApp } from '../harness';

/** What a raw connection received before the server closed it, and how long the server took to close it. */
interface Closed {
  received: string;
  afterMs: number;
}

/**
 * Opens a raw TCP connection, writes `chunks` and waits until the server closes it. Fails if it is still open
 * after `bound` ms (the server's defaults hold such a connection for minutes).
 */
function whenClosed(port: number, chunks: string[], bound: number): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = '';
    const socket: Socket = connect(port, '127.0.0.1', () => {
      for (const c of chunks) socket.write(c);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server still held the connection after ${bound} ms; received: ${received}`));
    }, bound);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => undefined); // a reset also ends the connection; 'close' follows
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, afterMs: Date.now() - started });
    });
  });
}

/** An open connection that has been accepted (it answered a first complete request). */
function openConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'),
    );
    socket.setEncoding('utf8');
    socket.once('data', (d: string) =>
      d.startsWith('HTTP/1.1 200') ? resolve(socket) : reject(new Error(`unexpected answer: ${d}`)),
    );
    socket.once('error', reject);
  });
}

const portOf = (t: TestApp) => (t.app.getHttpServer().address() as AddressInfo).port;

/** A bound well above the configured limits, far below the defaults the defect left in place (300 s, 72 s). */
const BOUND = 15_000;

describe('slow and stuck clients (HTTP_*_TIMEOUT_MS, HTTP_MAX_CONNECTIONS)', () => {
  let t: TestApp;
  let few: TestApp;

  beforeAll(async () => {
    t = await bootTestApp({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '500',
        HTTP_REQUEST_TIMEOUT_MS: '1000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    few = await bootTestApp({ db: t.db, env: { HTTP_MAX_CONNECTIONS: '2' } });
    await few.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await few?.close();
    await t?.close();
  });

  it('a body announced as 100 bytes of which 2 arrive gets 408 and the connection is closed', async () => {
    const closed = await whenClosed(
      portOf(t),
      [
        'POST /v1/people HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
        '{"',
      ],
      BOUND,
    );
    expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.afterMs).toBeGreaterThanOrEqual(900);
  });

  it('headers that never finish get 408 and the connection is closed', async () => {
    const closed = await whenClosed(portOf(t), ['GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: '], BOUND);
    expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const closed = await whenClosed(
      portOf(t),
      ['GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'],
      BOUND,
    );
    expect(closed.received).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a connection beyond HTTP_MAX_CONNECTIONS is closed unanswered; the open ones keep working', async () => {
    const port = portOf(few);
    const open = [await openConnection(port), await openConnection(port)];
    try {
      const third = await whenClosed(port, ['GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n'], BOUND);
      expect(third.received).toBe('');
      const again = await new Promise<string>((resolve) => {
        open[0].once('data', (d: string) => resolve(d));
        open[0].write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(again).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const s of open) s.destroy();
    }
  });
});
