import type { VariableDeclaration } from '../native/variables.js';

/**
 * A small reader for the `variable "name" { ... }` blocks of terraform files: enough for a
 * template's variables (description, type, default, sensitive), not a full HCL parser. Strings,
 * heredocs and comments are skipped where braces are counted, so a `}` inside them does no harm.
 * Defaults that are not a plain string, number or bool (lists, maps, expressions) are kept as the
 * text written.
 */
export function readTerraformVariables(source: string): VariableDeclaration[] {
  const text = withoutComments(source);
  const out: VariableDeclaration[] = [];
  const header = /(^|\n)[ \t]*variable[ \t]+"([^"\\]+)"[ \t]*\{/g;
  for (let match = header.exec(text); match !== null; match = header.exec(text)) {
    const bodyStart = match.index + match[0].length;
    const bodyEnd = closingBrace(text, bodyStart);
    const attributes = topLevelAttributes(text.slice(bodyStart, bodyEnd));
    out.push(declaration(match[2] ?? '', attributes));
    header.lastIndex = bodyEnd;
  }
  return out;
}

function declaration(name: string, attributes: ReadonlyMap<string, string>): VariableDeclaration {
  const rawDefault = attributes.get('default');
  const hasDefault = rawDefault !== undefined && rawDefault !== 'null';
  const defaultValue = hasDefault ? literalText(rawDefault) : '';
  return {
    name,
    description: literalText(attributes.get('description') ?? '""'),
    type: variableType(attributes.get('type'), hasDefault ? rawDefault : undefined),
    default_value: defaultValue,
    // `default = null` makes a terraform variable optional, with no value.
    required: rawDefault === undefined,
    sensitive: attributes.get('sensitive') === 'true',
  };
}

/** string, number and bool map as they are; collection and object types travel as text. */
function variableType(type: string | undefined, rawDefault: string | undefined): VariableDeclaration['type'] {
  const declared = type?.replace(/\s+/g, '');
  if (declared === 'number' || declared === 'bool') return declared;
  if (declared !== undefined) return 'string';
  if (rawDefault !== undefined && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(rawDefault)) return 'number';
  if (rawDefault === 'true' || rawDefault === 'false') return 'bool';
  return 'string';
}

/** A quoted string's value, a heredoc's content, or the expression's text as written. */
function literalText(raw: string): string {
  const trimmed = raw.trim();
  if (/^"(?:[^"\\]|\\.)*"$/s.test(trimmed)) {
    try {
      return JSON.parse(trimmed) as string;
    } catch {
      return trimmed.slice(1, -1);
    }
  }
  const heredoc = /^<<(-?)([A-Za-z_][A-Za-z0-9_]*)\n([\s\S]*?)\n?[ \t]*\2$/.exec(trimmed);
  if (heredoc) {
    // Like terraform, the content keeps the line break of its last line.
    const body = heredoc[3] === undefined || heredoc[3] === '' ? '' : `${heredoc[3]}\n`;
    return heredoc[1] === '-' ? outdent(body) : body;
  }
  return trimmed;
}

function outdent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0));
  return lines.map((line) => line.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

/**
 * `name = value` pairs at the top of a block body; nested blocks (`validation { }`) are skipped.
 * A value runs to the end of its line, or further while brackets, strings or a heredoc are open.
 */
function topLevelAttributes(body: string): Map<string, string> {
  const attributes = new Map<string, string>();
  let i = 0;
  while (i < body.length) {
    const match = /^[ \t\r\n;]*([A-Za-z_][A-Za-z0-9_-]*)[ \t]*(=(?!=)|\{)?/.exec(body.slice(i));
    if (!match || match[0].length === 0) {
      i = skipToLineEnd(body, i) + 1;
      continue;
    }
    const start = i + match[0].length;
    if (match[2] === '{') {
      i = closingBrace(body, start) + 1;
    } else if (match[2] === '=') {
      const end = expressionEnd(body, start);
      attributes.set(match[1] ?? '', body.slice(start, end).trim());
      i = end + 1;
    } else {
      i = skipToLineEnd(body, start) + 1;
    }
  }
  return attributes;
}

/** The index of the `}` that closes a block whose body starts at `from` (the text's end if none). */
function closingBrace(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const skipped = skipLiteral(text, i);
    if (skipped !== i) {
      i = skipped - 1;
      continue;
    }
    const char = text[i];
    if (char === '{' || char === '[' || char === '(') depth++;
    else if (char === '}' || char === ']' || char === ')') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return text.length;
}

/** Where an attribute's expression starting at `from` ends: the first newline outside brackets, strings and heredocs. */
function expressionEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const skipped = skipLiteral(text, i);
    if (skipped !== i) {
      i = skipped - 1;
      continue;
    }
    const char = text[i];
    if (char === '{' || char === '[' || char === '(') depth++;
    else if (char === '}' || char === ']' || char === ')') depth--;
    else if (char === '\n' && depth <= 0) return i;
  }
  return text.length;
}

function skipToLineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** When a string or heredoc starts at `i`, the index just past it; otherwise `i`. */
function skipLiteral(text: string, i: number): number {
  if (text[i] === '"') {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
      else if (text[j] === '\n') return j;
    }
    return text.length;
  }
  if (text.startsWith('<<', i)) {
    const heredoc = /^<<-?([A-Za-z_][A-Za-z0-9_]*)\n/.exec(text.slice(i));
    if (!heredoc) return i;
    const close = new RegExp(`\\n[ \\t]*${heredoc[1] ?? ''}(?=\\r?\\n|$)`).exec(text.slice(i + heredoc[0].length - 1));
    return close ? i + heredoc[0].length - 1 + close.index + close[0].length : text.length;
  }
  return i;
}

/** The text with `#`, `//` and `/* *\/` comments blanked out (strings and heredocs left alone). */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const skipped = skipLiteral(text, i);
    if (skipped !== i) {
      out += text.slice(i, skipped);
      i = skipped;
    } else if (text[i] === '#' || text.startsWith('//', i)) {
      i = skipToLineEnd(text, i);
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, ' ');
      i += comment.length;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}
