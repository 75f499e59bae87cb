import { QuietStartLogger } from './quiet-logger';

describe('QuietStartLogger', () => {
  const secret = 'the-secret-value-0123456789';
  const redact = (text: string) => text.split(secret).join('[redacted]');

  it.each([false, true])('passes every line, error and stack through the redactor (json: %s)', (json) => {
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array) => (written.push(String(chunk)), true);
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const logger = new QuietStartLogger('Test', { json, colors: false }, redact);
      logger.log(`connected with ${secret}`);
      logger.warn({ detail: `url redis://:${secret}@h` }, 'Redis');
      logger.error(new Error(`failed: ${secret}`));
      logger.error(`failed: ${secret}`, `Error: ${secret}\n    at somewhere`, 'Ctx');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const text = written.join('');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(secret);
  });
});
