import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The repository methods that write, read from the source of every `src/visitor/**\/*.repository.ts`: a method
 * writes when its body holds an INSERT, UPDATE or DELETE statement (in its own text, in a module constant it
 * names, or through an exported SQL helper such as `takePlaceSql`) or calls TypeORM's insert/update/save/delete
 * on a repository. Names are `Class.method`.
 */

const WRITE_SQL = /\b(INSERT\s+INTO|UPDATE\s+[a-z_]+\.[a-z_]+|DELETE\s+FROM)\b/i;
const ORM_WRITE =
  /(getRepository\([^)]*\)|\brepo(\([^)]*\))?)\s*\.\s*(insert|update|save|delete|upsert|remove|softDelete)\s*\(/;

function repositoryFiles(dir: string): string[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) found.push(...repositoryFiles(p));
    else if (e.name.endsWith('.repository.ts')) found.push(p);
  }
  return found.sort();
}

/**
 * Top-level constants (template strings) and exported functions whose text holds a write statement or a TypeORM
 * write (`saveInTenant`), in the repositories and in the shared tenant helpers.
 */
function writingHelpers(sources: string[]): Set<string> {
  const names = new Set<string>();
  for (const src of sources) {
    for (const m of src.matchAll(/^const (\w+) = `([\s\S]*?)`;/gm)) if (WRITE_SQL.test(m[2])) names.add(m[1]);
    for (const m of src.matchAll(/^export (?:async )?function (\w+)\s*[<(][\s\S]*?\n}\n/gm))
      if (WRITE_SQL.test(m[0]) || ORM_WRITE.test(m[0])) names.add(m[1]);
  }
  return names;
}

export function writeMethods(root = 'src/visitor'): string[] {
  const files = repositoryFiles(root);
  const sources = files.map((f) => readFileSync(f, 'utf8'));
  const helpers = writingHelpers([...sources, readFileSync(join(root, 'platform/tenant.ts'), 'utf8')]);
  const out: string[] = [];
  for (const src of sources) {
    for (const cls of src.matchAll(/^export class (\w+)[^\n]*\{\n([\s\S]*?)^\}/gm)) {
      const body = cls[2];
      const starts = [
        ...body.matchAll(
          /^ {2}(?:(?:async|private|public|protected|static|readonly)\s+)*(\w+)\s*(?:<[^(]*>)?\(/gm,
        ),
      ].filter((m) => m[1] !== 'constructor');
      starts.forEach((s, i) => {
        // without comments: a doc comment before the next method belongs to that one
        const text = body
          .slice(s.index, starts[i + 1]?.index)
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/^\s*\/\/.*$/gm, '');
        const writes =
          WRITE_SQL.test(text) ||
          ORM_WRITE.test(text) ||
          [...helpers].some((h) => new RegExp(`\\b${h}\\b`).test(text));
        if (writes) out.push(`${cls[1]}.${s[1]}`);
      });
    }
  }
  return out;
}
