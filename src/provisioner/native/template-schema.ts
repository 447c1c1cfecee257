import type { BooleanSchema, EnumSchema, IntegerSchema, ListSchema, MapSchema, ObjectSchema, Schema, TextSchema } from './schema-nodes.js';

/**
 * The shape of `template.yaml`, written in the schema language of schema-nodes.ts: every field, its
 * type and whether it is required. read-against-schema.ts checks a document against it.
 */

/** Resource names, agent names and app slugs. */
export const SLUG_PATTERN = /^[a-z0-9](-?[a-z0-9])*$/;
/** Parameter and variable names: usable in a `${{ }}` reference as they are. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const text: TextSchema = { kind: 'text' };
const literal: TextSchema = { kind: 'text', literal: true };
const bool: BooleanSchema = { kind: 'boolean' };
const slug: TextSchema = {
  kind: 'text',
  literal: true,
  pattern: { regex: SLUG_PATTERN, describe: 'must be lowercase letters and digits with single hyphens between them' },
};
const identifier: TextSchema = {
  kind: 'text',
  literal: true,
  pattern: { regex: IDENTIFIER_PATTERN, describe: 'must start with a letter or _ and hold only letters, digits, _ and -' },
};
const nonNegative: IntegerSchema = { kind: 'integer', min: 0 };
const list = (items: Schema): ListSchema => ({ kind: 'list', items });
const map = (values: Schema): MapSchema => ({ kind: 'map', values });
const oneOf = (...values: string[]): EnumSchema => ({ kind: 'enum', values });

/** Parameter types, in the order error messages list them. */
export const PARAMETER_TYPES = ['string', 'number', 'bool', 'list(string)'] as const;
/** Form types the reference knows for rich parameters. */
export const FORM_TYPES = [
  'radio',
  'slider',
  'input',
  'dropdown',
  'checkbox',
  'switch',
  'multi-select',
  'tag-select',
  'textarea',
  'error',
] as const;
/** Compute types of the native provisioner. */
export const RESOURCE_TYPES = ['process', 'docker', 'hook', 'directory'] as const;
/** Built-in apps an agent may show. */
export const DISPLAY_APPS = ['vscode', 'vscode_insiders', 'web_terminal', 'ssh_helper', 'port_forwarding_helper'] as const;
/** Hook commands, in the order a workspace's life runs them. */
export const HOOK_COMMANDS = ['create', 'start', 'stop', 'delete'] as const;

const variableSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: { name: identifier, description: text, type: oneOf('string', 'number', 'bool'), default: text, sensitive: bool },
};

const optionSchema: ObjectSchema = {
  kind: 'object',
  required: ['name', 'value'],
  fields: { name: text, description: text, value: text, icon: text },
};

const parameterSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: {
    name: identifier,
    display_name: text,
    description: text,
    type: oneOf(...PARAMETER_TYPES),
    form_type: oneOf(...FORM_TYPES),
    default: { kind: 'text-or-list' },
    mutable: bool,
    ephemeral: bool,
    icon: text,
    order: { kind: 'integer' },
    options: list(optionSchema),
    validation: {
      kind: 'object',
      fields: {
        min: { kind: 'integer' },
        max: { kind: 'integer' },
        monotonic: oneOf('increasing', 'decreasing'),
        regex: text,
        error: text,
      },
    },
  },
};

const presetSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: { name: text, default: bool, parameters: map(text) },
};

const externalAuthSchema: ObjectSchema = {
  kind: 'object',
  required: ['id'],
  shorthand: 'id',
  fields: { id: literal, optional: bool },
};

const scriptSchema: ObjectSchema = {
  kind: 'object',
  required: ['script'],
  fields: {
    display_name: text,
    script: text,
    cron: text,
    run_on_start: bool,
    run_on_stop: bool,
    start_blocks_login: bool,
    timeout: nonNegative,
    log_path: text,
  },
};

const appSchema: ObjectSchema = {
  kind: 'object',
  required: ['slug'],
  fields: {
    slug,
    display_name: text,
    url: text,
    command: text,
    icon: text,
    external: bool,
    subdomain: bool,
    share: oneOf('owner', 'authenticated', 'organization', 'public'),
    hidden: bool,
    open_in: oneOf('slim-window', 'tab'),
    group: text,
    healthcheck: {
      kind: 'object',
      required: ['url'],
      fields: { url: text, interval: { kind: 'integer', min: 1 }, threshold: { kind: 'integer', min: 1 } },
    },
  },
};

/** An agent's metadata item (the reference's `coder_agent.metadata` block): a script run every `interval` seconds. */
const agentMetadataSchema: ObjectSchema = {
  kind: 'object',
  required: ['key', 'script', 'interval'],
  fields: {
    key: literal,
    display_name: text,
    script: text,
    interval: nonNegative,
    timeout: nonNegative,
    order: { kind: 'integer' },
  },
};

const agentSchema: ObjectSchema = {
  kind: 'object',
  required: ['name'],
  fields: {
    name: slug,
    dir: text,
    env: map(text),
    os: oneOf('linux', 'darwin', 'windows'),
    arch: oneOf('amd64', 'arm64', 'armv7', '386'),
    connection_timeout: nonNegative,
    troubleshooting_url: text,
    display_apps: list(oneOf(...DISPLAY_APPS)),
    startup_script_behavior: oneOf('blocking', 'non-blocking'),
    instance_id: text,
    scripts: list(scriptSchema),
    apps: list(appSchema),
    metadata: list(agentMetadataSchema),
  },
};

const metadataSchema: ObjectSchema = {
  kind: 'object',
  required: ['key'],
  fields: { key: literal, value: text, sensitive: bool },
};

const agents = list(agentSchema);

/** One entry of `resources`: the common fields plus those of its compute type. */
export const RESOURCE_SCHEMA: ObjectSchema = {
  kind: 'object',
  required: ['name', 'type'],
  discriminator: 'type',
  fields: { name: slug, type: oneOf(...RESOURCE_TYPES), hide: bool, icon: text, daily_cost: nonNegative, metadata: list(metadataSchema) },
  variants: {
    directory: { fields: { path: text }, required: ['path'] },
    process: { fields: { agents } },
    docker: { fields: { image: text, volumes: list(text), env: map(text), agents }, required: ['image'] },
    hook: {
      fields: { create: literal, start: literal, stop: literal, delete: literal, env: map(text), agents },
      required: ['start'],
    },
  },
};

/** The whole file. */
export const TEMPLATE_SCHEMA: ObjectSchema = {
  kind: 'object',
  fields: {
    description: text,
    icon: text,
    variables: list(variableSchema),
    parameters: list(parameterSchema),
    presets: list(presetSchema),
    external_auth: list(externalAuthSchema),
    resources: list(RESOURCE_SCHEMA),
  },
};
