import { Output } from './output';

/** A stand-in for process.stdout / stderr: a terminal or not, keeping what is written. */
function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, text: '', write: (chunk: string) => ((s.text += chunk), true) };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('gatehouse-dev output', () => {
  const noColor = process.env.NO_COLOR;
  afterEach(() => {
    if (noColor === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = noColor;
  });

  it('on a terminal: coloured results and statuses, progress on stderr, failures in red', () => {
    delete process.env.NO_COLOR;
    const [out, err] = [stream(true), stream(true)];
    const o = new Output(false, out, err);
    o.emit({ type: 'x' }, `${o.paint('green', 'Resent')} evt_1 → ${o.status(204)} ${o.status(500)}`);
    o.progress('GET /v1/sites?limit=1');
    o.fail('not_found', '404 not_found: No such event');
    expect(out.text).toBe('\x1b[32mResent\x1b[0m evt_1 → \x1b[32m204\x1b[0m \x1b[31m500\x1b[0m\n');
    expect(err.text).toBe(
      '\x1b[2mGET /v1/sites?limit=1\x1b[0m\n\x1b[31merror: 404 not_found: No such event\x1b[0m\n',
    );
  });

  it('piped or with NO_COLOR: plain lines and no progress', () => {
    delete process.env.NO_COLOR;
    const [out, err] = [stream(false), stream(false)];
    const o = new Output(false, out, err);
    o.emit({}, `${o.paint('cyan', 'visit.created')} ${o.status('failed')}`);
    o.progress('GET /v1/sites');
    expect([out.text, err.text]).toEqual(['visit.created failed\n', '']);

    process.env.NO_COLOR = '1';
    const tty = stream(true);
    const plain = new Output(false, tty, stream(true));
    plain.emit({}, plain.paint('red', 'plain'));
    expect(tty.text).toBe('plain\n');
  });

  it('with --json: one JSON object per line on stdout, failures too, no progress', () => {
    const [out, err] = [stream(true), stream(true)];
    const o = new Output(true, out, err);
    o.emit({ type: 'triggered', event_type: 'visit.created' }, 'ignored');
    o.progress('GET /v1/sites');
    o.fail('usage', 'bad');
    expect(out.text.split('\n')).toEqual([
      '{"type":"triggered","event_type":"visit.created"}',
      '{"error":{"code":"usage","message":"bad"}}',
      '',
    ]);
    expect(err.text).toBe('');
  });
});
