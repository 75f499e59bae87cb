/** One request as the log keeps it. */
export interface RequestLogEntry {
  requestId: string;
  errorRef: string | null;
  receivedAt: Date;
  surface: string;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  clientIp: string | null;
  organisationId: string | null;
  credentialId: string | null;
  livemode: boolean | null;
}

/*
 * The line format of a request in a stored batch: PostgreSQL's COPY text format — fields separated by tabs, a line
 * ending in a newline, null as \N, and backslash, tab, newline and carriage return escaped with a backslash — in
 * the field order of RequestLogEntry. Request id, error ref and time come first, so a batch's range and refs are
 * read without parsing whole lines.
 */

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

/** A text field: backslash, tab and line breaks escaped; null as \N. */
export function escapeField(v: string | null): string {
  if (v === null) return '\\N';
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : v;
}

/** The inverse of escapeField. */
export function unescapeField(v: string): string | null {
  if (v === '\\N') return null;
  return v.indexOf('\\') === -1 ? v : v.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c);
}

/** `toISOString` of the last millisecond asked for: requests arriving in the same millisecond share it. */
let isoMs = NaN;
let iso = '';
function isoOf(d: Date): string {
  const ms = d.getTime();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = d.toISOString();
  }
  return iso;
}

/** One entry as a line. */
export function logLine(r: RequestLogEntry): string {
  return `${escapeField(r.requestId)}\t${escapeField(r.errorRef)}\t${isoOf(r.receivedAt)}\t${escapeField(r.surface)}\t${escapeField(r.method)}\t${escapeField(r.path)}\t${r.status}\t${escapeField(r.errorCode)}\t${r.durationMs}\t${escapeField(r.clientIp)}\t${escapeField(r.organisationId)}\t${escapeField(r.credentialId)}\t${r.livemode === null ? '\\N' : r.livemode ? 't' : 'f'}\n`;
}

/** A line (without its newline) back into an entry. */
export function parseLine(line: string): RequestLogEntry {
  const f = line.split('\t');
  const text = (i: number) => unescapeField(f[i]);
  return {
    requestId: text(0) ?? '',
    errorRef: text(1),
    receivedAt: new Date(f[2]),
    surface: text(3) ?? '',
    method: text(4) ?? '',
    path: text(5) ?? '',
    status: Number(f[6]),
    errorCode: text(7),
    durationMs: Number(f[8]),
    clientIp: text(9),
    organisationId: text(10),
    credentialId: text(11),
    livemode: f[12] === '\\N' ? null : f[12] === 't',
  };
}

const FIRST_CAPACITY = 16 * 1024;

/**
 * A batch being filled: its entries' lines written into one byte buffer as they come (nothing of a request stays
 * on the JavaScript heap until the flush, so holding a batch costs the garbage collector nothing), and what the
 * batch row records beside them — least and greatest request id, first and last time, error refs — kept up to
 * date entry by entry rather than read back from the lines.
 */
export class LogBatch {
  private bytes = Buffer.allocUnsafe(FIRST_CAPACITY);
  private used = 0;
  count = 0;
  firstId = '';
  lastId = '';
  private firstMs = Infinity;
  private lastMs = -Infinity;
  readonly errorRefs: string[] = [];
  /** Whether the batch holds a request of an organisation in test mode (the request stream is told of those). */
  testMode = false;

  add(e: RequestLogEntry): void {
    const line = logLine(e);
    // A UTF-8 character is at most 3 bytes per UTF-16 code unit.
    if (this.used + line.length * 3 > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + line.length * 3));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(line, this.used, 'utf8');
    if (this.count === 0 || e.requestId < this.firstId) this.firstId = e.requestId;
    if (this.count === 0 || e.requestId > this.lastId) this.lastId = e.requestId;
    const ms = e.receivedAt.getTime();
    if (ms < this.firstMs) this.firstMs = ms;
    if (ms > this.lastMs) this.lastMs = ms;
    if (e.errorRef !== null) this.errorRefs.push(e.errorRef);
    if (e.livemode === false) this.testMode = true;
    this.count += 1;
  }

  /** The lines, as UTF-8 (a view of the buffer, not a copy). */
  lines(): Buffer {
    return this.bytes.subarray(0, this.used);
  }

  get firstAt(): Date {
    return new Date(this.firstMs);
  }

  get lastAt(): Date {
    return new Date(this.lastMs);
  }
}
