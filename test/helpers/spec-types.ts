import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The object types of the API specification as field lists, so tests can hold real answers against
 * every field the spec lists. Tests read them from a generated fixture (test/fixtures/spec-types.json),
 * so that a clone with nothing beside it runs them; `npm run spec:types` (scripts/spec-types.ts)
 * writes that fixture from the spec's markdown (`../shared/spec/api-v2.md` next to the repository)
 * with the parsing here. The spec writes its types three ways: tables (`| Field | Type |`), bullets
 * of backticked names each group followed by its type in parentheses or after a colon, and inline
 * objects (`{name: type, ...}`); all three are read here.
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

/** The repository's root: the nearest directory above this file with a package.json. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return dir;
}

/**
 * Where the spec lives: `../shared/spec/api-v2.md` relative to the repository, or `$COVE_SPEC_PATH`
 * (a path that does not exist shows how the tests do in a clone without the spec).
 */
export function specPath(): string {
  return process.env['COVE_SPEC_PATH'] || join(repositoryRoot(), '..', 'shared', 'spec', 'api-v2.md');
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

/** Where the spec lists one response type's fields: a section, and in it a table or a labelled list. */
export interface SpecTypeLocation {
  /** The type as the spec names it. */
  readonly type: string;
  readonly heading: string;
  /** Where the fields are listed: a table when absent, else the bullet (or paragraph) starting with this. */
  readonly label?: string;
  /** Only the part of the bullet after this (for "X request: ... Response: ..."). */
  readonly after?: string;
  /** Further field lists the type includes ("Assignable role: the role fields plus ..."). */
  readonly includes?: readonly { readonly heading: string; readonly label?: string }[];
}

/** Every response type the tests hold answers against, and where the spec lists its fields. */
export const SPEC_TYPE_LOCATIONS: readonly SpecTypeLocation[] = [
  { type: 'Organization', heading: 'Organization' },
  { type: 'Organization member', heading: 'Organization member', label: '' },
  { type: 'Role reference', heading: 'Organization member', label: 'Role reference:' },
  {
    type: 'Member with user data',
    heading: 'Organization member',
    label: 'Member with user data adds',
    includes: [{ heading: 'Organization member', label: '' }],
  },
  { type: 'Paginated members response', heading: 'Organization member', label: 'Paginated members response:' },
  { type: 'Role', heading: 'Role', label: 'Role:' },
  { type: 'Assignable role', heading: 'Role', label: 'Assignable role:', includes: [{ heading: 'Role', label: 'Role:' }] },
  { type: 'Permission', heading: 'Role', label: 'Permission:' },
  { type: 'Login response', heading: 'Login and credentials', label: 'Login request:', after: 'Response:' },
  { type: 'Validate-password response', heading: 'Login and credentials', label: 'Validate-password request:', after: 'Response:' },
  { type: 'Token config', heading: 'Login and credentials', label: 'Token config:' },
  { type: 'Provisioner job', heading: 'Provisioner job' },
  { type: 'Job log entry', heading: 'Provisioner job', label: 'Job log entry:' },
  { type: 'Template', heading: 'Template' },
  { type: 'Template example', heading: 'Template', label: 'Template example:' },
  { type: 'Template version', heading: 'Template version', label: '' },
  { type: 'External auth entry', heading: 'Template version', label: 'External auth entry:' },
  { type: 'Preset', heading: 'Template version', label: 'Preset:' },
  { type: 'Dynamic parameters response', heading: 'Template version', label: 'Dynamic parameters response:' },
  { type: 'Dynamic parameter', heading: 'Template version', label: 'Parameter:' },
  { type: 'Workspace resource', heading: 'Workspace resource (inside builds and template versions)', label: '' },
  { type: 'Workspace agent', heading: 'Workspace agent' },
  { type: 'Log source', heading: 'Workspace agent', label: 'Log source:' },
  { type: 'Script', heading: 'Workspace agent', label: 'Script:' },
  { type: 'Agent log entry', heading: 'Workspace agent', label: 'Agent log entry:' },
  { type: 'App', heading: 'Workspace agent', label: 'App:' },
  { type: 'App status', heading: 'Workspace agent', label: 'App status:' },
  { type: 'Containers response', heading: 'Workspace agent', label: 'Containers response:' },
  { type: 'Connection info', heading: 'Workspace agent', label: 'Connection info:' },
  { type: 'Relay map', heading: 'Workspace agent', label: 'derp_map:' },
  { type: 'Relay node', heading: 'Workspace agent', label: 'Relay node:' },
  { type: 'Listening ports response', heading: 'Workspace agent', label: 'Listening ports response:' },
  { type: 'Git SSH key response', heading: 'Workspace agent', label: 'Git SSH key response:' },
  { type: 'Agent external auth response', heading: 'Workspace agent', label: 'Agent external auth response:' },
  { type: 'Workspace', heading: 'Workspace', label: 'Fields:' },
  { type: 'Workspace build', heading: 'Workspace', label: 'Workspace build fields:' },
  { type: 'Timings response', heading: 'Workspace', label: 'Timings response:' },
  { type: 'Resolve-autostart response', heading: 'Workspace', label: 'Resolve-autostart response:' },
  { type: 'Port share', heading: 'Port share', label: 'Share:' },
  { type: 'Port share list response', heading: 'Port share', label: 'List response:' },
  { type: 'Build info', heading: 'Deployment and general information', label: 'Build info:' },
  { type: 'Update check', heading: 'Deployment and general information', label: 'Update check:' },
  { type: 'SSH config', heading: 'Deployment and general information', label: 'SSH config:' },
  { type: 'Deployment stats', heading: 'Deployment and general information', label: 'Deployment stats:' },
  { type: 'Deployment config', heading: 'Deployment and general information', label: 'Deployment config:' },
  { type: 'Error body', heading: 'Deployment and general information', label: 'Error/response body' },
  { type: 'App host response', heading: 'Deployment and general information', label: 'App host response:' },
];

/** The spec's type list: each type's fields, by the type's name. */
export type SpecTypes = Readonly<Record<string, readonly SpecField[]>>;

/** The committed type list, which tests read instead of the spec. */
export const SPEC_TYPES_FIXTURE = join(repositoryRoot(), 'test', 'fixtures', 'spec-types.json');

/** The fixture as written: what made it, then the types. */
interface SpecTypesFile {
  readonly about: string;
  readonly types: SpecTypes;
}

/** Reads every type of SPEC_TYPE_LOCATIONS from the spec's markdown, includes joined on. */
export function specTypesFromSpec(path = specPath()): SpecTypes {
  const sections = readSpecSections(path);
  const read = (heading: string, label: string | undefined, after?: string): SpecField[] => {
    const lines = sections.get(heading);
    if (!lines) throw new Error(`the spec has no section "${heading}"`);
    return label === undefined ? tableFields(lines) : bulletFields(bulletText(lines, label, after));
  };
  const types: Record<string, readonly SpecField[]> = {};
  for (const location of SPEC_TYPE_LOCATIONS) {
    const fields = [
      ...read(location.heading, location.label, location.after),
      ...(location.includes ?? []).flatMap((included) => read(included.heading, included.label)),
    ];
    if (fields.length === 0) throw new Error(`the spec lists no fields of ${location.type}`);
    types[location.type] = fields;
  }
  return types;
}

/** The fixture's text for a type list (before formatting). */
export function specTypesFileText(types: SpecTypes): string {
  const file: SpecTypesFile = {
    about: 'Generated by `npm run spec:types` (scripts/spec-types.ts) from ../shared/spec/api-v2.md. Do not edit by hand.',
    types,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** The committed type list. */
export function committedSpecTypes(): SpecTypes {
  return (JSON.parse(readFileSync(SPEC_TYPES_FIXTURE, 'utf8')) as SpecTypesFile).types;
}

/** The fields of one type of the committed list. */
export function specTypeFields(type: string): readonly SpecField[] {
  const fields = committedSpecTypes()[type];
  if (!fields) throw new Error(`${type} is not in test/fixtures/spec-types.json: add it to SPEC_TYPE_LOCATIONS and run npm run spec:types`);
  return fields;
}
