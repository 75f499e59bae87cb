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

/** One entry as a line. */
export function logLine(r: RequestLogEntry): string {
  return `${escapeField(r.requestId)}\t${escapeField(r.errorRef)}\t${r.receivedAt.toISOString()}\t${escapeField(r.surface)}\t${escapeField(r.method)}\t${escapeField(r.path)}\t${r.status}\t${escapeField(r.errorCode)}\t${r.durationMs}\t${escapeField(r.clientIp)}\t${escapeField(r.organisationId)}\t${escapeField(r.credentialId)}\t${r.livemode === null ? '\\N' : r.livemode ? 't' : 'f'}\n`;
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

/** What a batch of lines holds: its least and greatest request id, first and last time, and its error refs. */
export function batchOf(lines: string[]): {
  firstId: string;
  lastId: string;
  firstAt: string;
  lastAt: string;
  errorRefs: string[];
} {
  let firstId = '';
  let lastId = '';
  let firstAt = '';
  let lastAt = '';
  const errorRefs: string[] = [];
  lines.forEach((line, i) => {
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    const id = unescapeField(line.slice(0, a)) ?? '';
    const ref = unescapeField(line.slice(a + 1, b));
    const at = line.slice(b + 1, line.indexOf('\t', b + 1)); // toISOString: fixed width, sorts as time
    if (i === 0 || id < firstId) firstId = id;
    if (i === 0 || id > lastId) lastId = id;
    if (i === 0 || at < firstAt) firstAt = at;
    if (i === 0 || at > lastAt) lastAt = at;
    if (ref !== null) errorRefs.push(ref);
  });
  return { firstId, lastId, firstAt, lastAt, errorRefs };
}
