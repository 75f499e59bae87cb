import type { CliCommand } from './cli-command';

/**
 * What a command's `usage` string declares, read by a small convention every command follows: forms are separated
 * by ` | ` (each may repeat the command's name), a form's first bare word is its sub-command, `--flag VALUE` outside
 * `[...]` is a required option, `<name>` outside `[...]` a required positional argument, and anything in `[...]` is
 * optional. From that the CLI reports every missing argument at once, before the command runs, and prints the
 * forms wrapped for the terminal.
 */
export interface UsageForm {
  /** The form as written, without the command's name. */
  text: string;
  sub: string | null;
  requiredFlags: string[];
  positionals: string[];
  /** Flags named anywhere in the form (required or optional) that take a value. */
  valueFlags: string[];
}

/** Tokens of a usage form: `[...]` groups, quoted strings and words stay whole. */
const tokens = (text: string) => text.match(/\[[^\]]*\]|"[^"]*"|\S+/g) ?? [];

const takesValue = (next: string | undefined) =>
  next !== undefined && !next.startsWith('--') && !next.startsWith('[');

export function usageForms(command: CliCommand): UsageForm[] {
  return command.usage.split(' | ').map((raw) => {
    const words = tokens(raw.trim());
    if (words[0] === command.name) words.shift();
    const text = words.join(' ');
    let sub: string | null = null;
    if (words[0] && /^[a-z][a-z0-9-]*$/.test(words[0])) sub = words.shift()!;
    const requiredFlags: string[] = [];
    const positionals: string[] = [];
    const valueFlags: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (w.startsWith('[')) {
        const inner = tokens(w.slice(1, -1));
        inner.forEach((x, j) => {
          if (x.startsWith('--') && takesValue(inner[j + 1])) valueFlags.push(x);
        });
      } else if (w.startsWith('--')) {
        requiredFlags.push(w);
        if (takesValue(words[i + 1])) {
          valueFlags.push(w);
          i++;
        }
      } else if (/^<[^>]+>$/.test(w)) positionals.push(w);
    }
    return { text, sub, requiredFlags, positionals, valueFlags };
  });
}

/** The form `args` select (by sub-command), or null when the form cannot be told (no sub-command given). */
export function formFor(command: CliCommand, args: string[]): UsageForm | null {
  const forms = usageForms(command);
  if (forms.every((f) => f.sub === null)) return forms[0];
  return forms.find((f) => f.sub === args[0]) ?? null;
}

/** Every required argument of the selected form that `args` lacks, in the order the usage names them. */
export function missingArguments(form: UsageForm, args: string[]): string[] {
  const missing: string[] = [];
  const rest = form.sub === null ? args : args.slice(1);
  const operands: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i].startsWith('--')) {
      if (form.valueFlags.includes(rest[i]) && rest[i + 1] !== undefined && !rest[i + 1].startsWith('--'))
        i++;
    } else operands.push(rest[i]);
  }
  for (const f of form.requiredFlags) {
    const at = rest.indexOf(f);
    const value = rest[at + 1];
    const needsValue = form.valueFlags.includes(f);
    if (at === -1 || (needsValue && (value === undefined || value.startsWith('--'))))
      missing.push(needsValue ? `${f} <value>` : f);
  }
  missing.push(...form.positionals.slice(operands.length));
  return missing;
}

/** `text` broken into lines of at most `width` columns, continuation lines indented by `indent`. */
export function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of tokens(text)) {
    if (line && `${line} ${word}`.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
