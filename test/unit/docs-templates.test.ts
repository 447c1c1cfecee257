import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { WORKSPACE_FIELDS } from '../../src/provisioner/native/interpolate.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import { parseTemplateText } from '../../src/provisioner/native/template-file.js';
import type { Schema } from '../../src/provisioner/native/schema-nodes.js';
import {
  DISPLAY_APPS,
  FORM_TYPES,
  HOOK_COMMANDS,
  PARAMETER_TYPES,
  RESOURCE_TYPES,
  TEMPLATE_SCHEMA,
} from '../../src/provisioner/native/template-schema.js';

// docs/templates.md is the users' reference for template.yaml. These tests tie it to the parser:
// every complete example must import, every field the schema knows must be documented, and every
// field a table documents must exist.

const DOC_PATH = new URL('../../docs/templates.md', import.meta.url);
const doc = await readFile(DOC_PATH, 'utf8');

const scratch = await mkdtemp(join(tmpdir(), 'cove-docs-templates-'));
after(() => rm(scratch, { recursive: true, force: true }));

interface Fence {
  readonly info: string;
  readonly body: string;
  readonly line: number;
}

/** Every fenced code block of a Markdown text, with its info string and starting line. */
function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    out.push({ info: (open[1] ?? '').trim(), body: `${body.join('\n')}\n`, line: start + 1 });
  }
  return out;
}

/** The blocks marked as a whole template.yaml: ```yaml template */
const completeExamples = fences(doc).filter((fence) => fence.info === 'yaml template');

/** Every field name the schema knows, in any object, including the variants of each resource type. */
function schemaFieldNames(schema: Schema, names = new Set<string>()): Set<string> {
  switch (schema.kind) {
    case 'object':
      for (const [name, field] of Object.entries(schema.fields)) {
        names.add(name);
        schemaFieldNames(field, names);
      }
      for (const variant of Object.values(schema.variants ?? {})) {
        for (const [name, field] of Object.entries(variant.fields)) {
          names.add(name);
          schemaFieldNames(field, names);
        }
      }
      return names;
    case 'list':
      return schemaFieldNames(schema.items, names);
    case 'map':
      return schemaFieldNames(schema.values, names);
    default:
      return names;
  }
}

/** The names in the first column of every Markdown table whose first heading is `field`. */
function documentedFields(markdown: string): { name: string; line: number }[] {
  const out: { name: string; line: number }[] = [];
  const lines = markdown.split('\n');
  let inFieldTable = false;
  lines.forEach((line, index) => {
    if (!line.startsWith('|')) {
      inFieldTable = false;
      return;
    }
    const first = line.split('|')[1]?.trim() ?? '';
    if (first === 'field') inFieldTable = true;
    else if (inFieldTable && !/^-+$/.test(first)) {
      for (const match of first.matchAll(/`([^`]+)`/g)) out.push({ name: match[1] ?? '', line: index + 1 });
    }
  });
  return out;
}

/** Writes a complete example as a template directory, with a stand-in for each hook file it names. */
async function templateDirectory(example: Fence): Promise<string> {
  const directory = join(scratch, `line-${example.line}`);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'template.yaml'), example.body);
  // The doc shows template.yaml only; the hook scripts it names live beside it.
  const { raw } = parseTemplateText(example.body);
  for (const resource of raw.resources ?? []) {
    for (const hook of HOOK_COMMANDS) {
      const path = resource[hook];
      if (path === undefined) continue;
      await mkdir(dirname(join(directory, path)), { recursive: true });
      await writeFile(join(directory, path), '#!/bin/sh\n');
      await chmod(join(directory, path), 0o755);
    }
  }
  return directory;
}

const signal = new AbortController().signal;
const IMPORT_WORKSPACE = { id: '00000000-0000-0000-0000-000000000000', name: 'import', owner: 'admin', owner_id: '', start_count: 1 };

/** What the import of a template version does: parse, then plan a start and a stop with the defaults. */
async function importTemplate(directory: string): Promise<void> {
  const provisioner = createNativeProvisioner();
  const parsed = await provisioner.parse({ directory, variableValues: [], log: () => undefined, signal });
  const defaults = parsed.parameters.map((parameter) => ({ name: parameter.name, value: parameter.default_value }));
  for (const transition of ['start', 'stop'] as const) {
    await provisioner.plan({
      directory,
      variableValues: [],
      log: () => undefined,
      signal,
      transition,
      parameterValues: defaults,
      workspace: { ...IMPORT_WORKSPACE, start_count: transition === 'start' ? 1 : 0 },
      accessUrl: 'http://cove.test',
      previousState: null,
      importing: true,
    });
  }
}

describe('docs/templates.md', () => {
  it('has complete examples, marked ```yaml template', () => {
    assert.ok(completeExamples.length >= 4, `expected several complete examples, found ${completeExamples.length}`);
  });

  for (const example of completeExamples) {
    it(`the complete example at line ${example.line} imports with the native provisioner`, async () => {
      try {
        await importTemplate(await templateDirectory(example));
      } catch (error) {
        throw new Error(`docs/templates.md:${example.line}: the example does not import:\n${(error as Error).message}`);
      }
    });
  }

  it('has only YAML that parses in its other yaml blocks (the fragments)', () => {
    for (const fence of fences(doc).filter((candidate) => candidate.info === 'yaml')) {
      const parsed = parseDocument(fence.body);
      assert.deepEqual(
        parsed.errors.map((error) => error.message),
        [],
        `docs/templates.md:${fence.line}: the YAML does not parse`,
      );
    }
  });

  it('documents every field the parser knows', () => {
    const missing = [...schemaFieldNames(TEMPLATE_SCHEMA)].filter((name) => !doc.includes(`\`${name}\``));
    assert.deepEqual(missing, [], 'fields of template.yaml that docs/templates.md never names');
  });

  it('names every resource type, parameter type, form type, display app, hook and workspace field', () => {
    const values = [...RESOURCE_TYPES, ...PARAMETER_TYPES, ...FORM_TYPES, ...DISPLAY_APPS, ...HOOK_COMMANDS, ...WORKSPACE_FIELDS];
    const missing = values.filter((value) => !doc.includes(`\`${value}\``) && !doc.includes(`\`workspace.${value}\``));
    assert.deepEqual(missing, [], 'values that docs/templates.md never names');
  });

  it('documents no field the parser does not know', () => {
    const known = schemaFieldNames(TEMPLATE_SCHEMA);
    const documented = documentedFields(doc);
    assert.ok(documented.length > 50, `expected the field tables to be found, found ${documented.length} fields`);
    const unknown = documented.filter((field) => !known.has(field.name)).map((field) => `line ${field.line}: ${field.name}`);
    assert.deepEqual(unknown, [], 'docs/templates.md documents fields that template.yaml does not have');
  });
});
