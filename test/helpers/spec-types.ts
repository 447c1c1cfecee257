import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads the object types of the API specification (`../shared/spec/api-v2.md` next to the
 * repository) into field lists, so tests can hold real answers against every field the spec lists.
 * The spec writes its types three ways: tables (`| Field | Type |`), bullets of backticked names
 * each group followed by its type in parentheses or after a colon, and inline objects
 * (`{name: type, ...}`); all three are read here.
 */

/** The JSON type a field's spec type allows; `any` when the spec gives no usable type. */
export type JsonKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'any';

export interface SpecField {
  readonly name: string;
  readonly kind: JsonKind;
  /** The string format the spec names, where it names one. */
  readonly format?: 'uuid' | 'date-time';
  /** May be left out (only where a test says why). */
  readonly optional?: boolean;
  /** Marked required in a table (only then is null not allowed). */
  readonly required: boolean;
  /** The fields of an inline object, or of the elements of an array of inline objects. */
  readonly fields?: readonly SpecField[];
}

/** Where the spec lives: `../shared/spec/api-v2.md` relative to the repository. */
export function specPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return join(dir, '..', 'shared', 'spec', 'api-v2.md');
}

/** The lines of each `###` section of the spec, by heading. */
export function readSpecSections(path = specPath()): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const heading = /^#{2,3} (.+)$/.exec(line);
    if (heading) {
      current = line.startsWith('### ') ? [] : undefined;
      // Resource types come before the endpoint tables, which reuse some headings.
      const name = heading[1]?.trim() ?? '';
      if (current && !sections.has(name)) sections.set(name, current);
      continue;
    }
    current?.push(line);
  }
  return sections;
}

/** The JSON kind a spec type text describes. */
export function kindOf(description: string): JsonKind {
  const text = description
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^each\s+/, '');
  if (/^(an? )?array\b/.test(text) || /^list\b/.test(text)) return 'array';
  if (/^\{/.test(text) || /^(an? )?object\b/.test(text)) return 'object';
  if (/^(integer|int)\b/.test(text)) return 'integer';
  if (/^number\b/.test(text)) return 'number';
  if (/^boolean/.test(text)) return 'boolean';
  if (/^(uuid|date-time|strings?|enumerated|sample|`)/.test(text)) return 'string';
  if (/^any\b/.test(text)) return 'any';
  // "a provisioner job", "app status", "workspace build", "relay region"...: another object type.
  if (isTypeName(text)) return 'object';
  return 'any';
}

/**
 * The string format a spec type text names for a field: `uuid` or `date-time`. A group such as
 * "`display_name`, `name`, `organization_id` (uuid)" gives the format only to the names that are
 * ids (or times), since the spec's groups mix them with plain strings.
 */
export function formatOf(description: string, name: string): SpecField['format'] {
  const text = description.trim().toLowerCase();
  if (/^uuid\b/.test(text) && /(^|_)(id|ids|uuid)$/i.test(name)) return 'uuid';
  if (/^date-time\b/.test(text) && /(_at|deadline|^time)$/.test(name)) return 'date-time';
  return undefined;
}

/** Whether a parenthesised text names a type rather than making a note ("unique within the agent"). */
function isTypeText(description: string): boolean {
  const text = description.trim().toLowerCase();
  return kindOf(text) !== 'any' || /^any\b/.test(text);
}

/** Another object type named in words: "a provisioner job", "app status", "relay region". */
function isTypeName(text: string): boolean {
  return /^(an? )?[a-z][a-z -]*$/.test(text) && !/\b(the|within|when|see|is|are|only|not|if|for|string|integer|boolean|uuid)\b/.test(text);
}

/** Scans field lists: `` `a`, `b` (type) `` and `` `c`: type `` at top level, bare names inside braces. */
class FieldScanner {
  #pos = 0;
  constructor(
    private readonly text: string,
    private readonly bare: boolean,
  ) {}

  fields(): SpecField[] {
    const out: SpecField[] = [];
    let pending: string[] = [];
    const settle = (description: string | undefined, inline?: SpecField[]) => {
      for (const name of pending) {
        const kind = description === undefined ? 'any' : kindOf(description);
        const format = description === undefined ? undefined : formatOf(description, name);
        const nested = inline ?? (description !== undefined ? inlineFields(description) : undefined);
        out.push({
          name,
          kind,
          required: false,
          ...(format ? { format } : {}),
          ...(nested && nested.length > 0 ? { fields: nested } : {}),
        });
      }
      pending = [];
    };
    while (this.#pos < this.text.length) {
      const name = this.#name();
      if (name === undefined) {
        // Prose between lists ("Member with user data adds", "Response:"): skip a character.
        if (!this.bare && pending.length > 0 && /[.;]/.test(this.text[this.#pos] ?? '')) settle(undefined);
        this.#pos++;
        continue;
      }
      pending.push(name);
      this.#spaces();
      const next = this.text[this.#pos];
      if (next === '(') {
        const description = this.#balanced('(', ')');
        // A note in parentheses leaves the names waiting for the type that follows it.
        if (isTypeText(description)) settle(description);
      } else if (next === '{') {
        const body = this.#balanced('{', '}');
        settle('{', new FieldScanner(body, true).fields());
      } else if (next === ':') {
        this.#pos++;
        const description = this.#until(this.bare ? /[,;]/ : /[;\n]/);
        // An inline object names one field's shape ("value: {valid, value}"), not a group's.
        if (description.startsWith('{')) {
          const last = pending.pop();
          settle(undefined);
          if (last !== undefined) pending = [last];
        }
        settle(description);
      } else if (next === ',' || (this.bare && next === undefined)) {
        this.#pos++;
      } else if (this.text.startsWith('and ', this.#pos)) {
        this.#pos += 4;
      } else settle(undefined);
    }
    settle(undefined);
    return out;
  }

  #name(): string | undefined {
    this.#spaces();
    if (this.text.startsWith('and ', this.#pos)) this.#pos += 4;
    const pattern = this.bare ? /^([A-Za-z_][\w-]*)(?=\s*[,:;({]|\s*$)/ : /^`([a-z_][\w-]*)`/;
    const match = pattern.exec(this.text.slice(this.#pos));
    if (!match) return undefined;
    this.#pos += match[0].length;
    return match[1];
  }

  #spaces(): void {
    while (/\s/.test(this.text[this.#pos] ?? '')) this.#pos++;
  }

  /** The text inside the brackets that start here, nesting respected; moves past them. */
  #balanced(open: string, close: string): string {
    let depth = 0;
    const start = this.#pos + 1;
    for (; this.#pos < this.text.length; this.#pos++) {
      const c = this.text[this.#pos];
      if (c === open) depth++;
      if (c === close && --depth === 0) break;
    }
    this.#pos++;
    return this.text.slice(start, this.#pos - 1);
  }

  /** The text up to a top-level stop character (or a sentence end at top level); moves past it. */
  #until(stop: RegExp): string {
    let depth = 0;
    const start = this.#pos;
    for (; this.#pos < this.text.length; this.#pos++) {
      const c = this.text[this.#pos] ?? '';
      if (c === '{' || c === '(') depth++;
      if (c === '}' || c === ')') depth--;
      if (depth === 0 && (stop.test(c) || (!this.bare && c === '.' && /^\.\s*($|[A-Z])/.test(this.text.slice(this.#pos))))) break;
    }
    return this.text.slice(start, this.#pos).trim();
  }
}

/** The fields of the first inline object in a type text (`{a: x}` or `array of {a: x}`). */
function inlineFields(description: string): SpecField[] | undefined {
  const open = description.indexOf('{');
  if (open < 0 || !/^(\s*(an? )?(array of |object )?)\{/i.test(description.slice(0, open + 1))) return undefined;
  let depth = 0;
  for (let i = open; i < description.length; i++) {
    if (description[i] === '{') depth++;
    if (description[i] === '}' && --depth === 0) return new FieldScanner(description.slice(open + 1, i), true).fields();
  }
  return undefined;
}

/** The fields a bullet text lists (backticked names with their types). */
export function bulletFields(text: string): SpecField[] {
  return new FieldScanner(text, false).fields();
}

/** The fields of a `| Field | Type |` table. */
export function tableFields(lines: readonly string[]): SpecField[] {
  const out: SpecField[] = [];
  let inTable = false;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (/^field$/i.test(cells[0] ?? '')) {
      inTable = true;
      continue;
    }
    if (!inTable || /^-+$/.test(cells[0] ?? '')) continue;
    const type = cells[1] ?? '';
    const nested = inlineFields(type);
    for (const cell of (cells[0] ?? '').split(',')) {
      const name = cell.trim().replace(/`/g, '');
      const format = formatOf(type, name);
      out.push({
        name,
        kind: kindOf(type),
        ...(format ? { format } : {}),
        required: cells[2] === 'yes',
        ...(nested ? { fields: nested } : {}),
      });
    }
  }
  return out;
}

/**
 * The bullet of a section that starts with `label` (after `- `, at any depth), with the deeper
 * bullets under it that list fields (start with a backtick) joined on; an empty label means the
 * section's top-level bullets that start with a backtick.
 */
export function bulletText(lines: readonly string[], label: string, after?: string): string {
  const text = labelledText(lines, label);
  if (after === undefined) return text;
  const at = text.indexOf(after);
  return at < 0 ? '' : text.slice(at + after.length);
}

function labelledText(lines: readonly string[], label: string): string {
  const parts: string[] = [];
  let depth: number | undefined;
  for (const line of lines) {
    const bullet = /^(\s*)- (.*)$/.exec(line);
    if (!bullet && label !== '' && depth === undefined && line.startsWith(label)) {
      // A paragraph that lists a type's fields ("Job log entry: ...").
      return line.slice(label.length);
    }
    if (!bullet) {
      if (label === '' && line.trim() !== '') depth = undefined;
      continue;
    }
    const indent = bullet[1]?.length ?? 0;
    const text = bullet[2] ?? '';
    if (label === '') {
      if (indent === 0) depth = text.startsWith('`') ? 0 : undefined;
      if (depth !== undefined && indent === 0) parts.push(text);
      continue;
    }
    if (depth !== undefined) {
      if (indent <= depth) break;
      if (text.startsWith('`')) parts.push(text);
    } else if (text.startsWith(label)) {
      depth = indent;
      parts.push(text.slice(label.length));
    }
  }
  return parts.join('\n');
}
