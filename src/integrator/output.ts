/**
 * What the integrator CLI prints: on a terminal, coloured lines for people (colour off with `NO_COLOR`); with
 * `--json` (or when asked by a program), one JSON object per line on stdout.
 */
export class Output {
  readonly colour: boolean;

  constructor(
    readonly json: boolean,
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly err: NodeJS.WriteStream = process.stderr,
  ) {
    this.colour = !json && out.isTTY === true && !process.env.NO_COLOR;
  }

  /** A result: the JSON object with `--json`, else the human line. */
  emit(object: Record<string, unknown>, line: string): void {
    this.out.write(this.json ? `${JSON.stringify(object)}\n` : `${line}\n`);
  }

  /** Progress for people (stderr, only on a terminal and without --json). */
  progress(text: string): void {
    if (!this.json && this.err.isTTY) this.err.write(`${this.paint('dim', text)}\n`);
  }

  /** A failure: JSON `{"error":…}` with --json, else a red line on stderr. */
  fail(code: string, message: string): void {
    if (this.json) this.out.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else this.err.write(`${this.paint('red', `error: ${message}`)}\n`);
  }

  paint(c: 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold', text: string): string {
    if (!this.colour) return text;
    const code = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 }[c];
    return `\x1b[${code}m${text}\x1b[0m`;
  }

  /** A status code coloured by its class; `failed` (no answer) in red. */
  status(status: number | 'failed'): string {
    const text = String(status);
    if (status === 'failed' || status >= 500) return this.paint('red', text);
    if (status >= 400) return this.paint('yellow', text);
    return this.paint('green', text);
  }
}
