import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ProvisionerError, type BuildInput, type ProvisionerLog, type Transition } from '../../src/provisioner/provisioner.js';
import { createTerraformProvisioner, findTerraform, resourcesOf } from '../../src/provisioner/terraform/terraform-provisioner.js';
import { readTerraformVariables } from '../../src/provisioner/terraform/terraform-variables.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-terraform-test-'));
after(() => rm(scratch, { recursive: true, force: true }));

let counter = 0;
async function templateDir(files: Record<string, string>): Promise<string> {
  const directory = join(scratch, `t${++counter}`);
  await mkdir(directory, { recursive: true });
  for (const [path, content] of Object.entries(files)) await writeFile(join(directory, path), content);
  return directory;
}

function buildInput(
  directory: string,
  transition: Transition,
  previousState: Buffer | null,
  logs: ProvisionerLog[] = [],
  overrides: Partial<BuildInput> = {},
): BuildInput {
  return {
    directory,
    variableValues: [],
    log: (line) => logs.push(line),
    signal: new AbortController().signal,
    transition,
    parameterValues: [],
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
    accessUrl: 'http://127.0.0.1:7080',
    previousState,
    ...overrides,
  };
}

const NOT_INSTALLED =
  'terraform is not installed on this provisioner: no "terraform" binary on PATH. Install terraform or use the native provisioner (template.yaml).';

describe('terraform provisioner without terraform', () => {
  it('fails parse, plan and apply with a message that says what to do', async () => {
    const empty = join(scratch, 'empty-bin');
    await mkdir(empty, { recursive: true });
    const provisioner = createTerraformProvisioner({ env: { PATH: empty } });
    const directory = await templateDir({ 'main.tf': 'output "x" { value = 1 }\n' });
    const expected = (error: unknown): boolean => error instanceof ProvisionerError && error.message === NOT_INSTALLED;
    await assert.rejects(
      provisioner.parse({ directory, variableValues: [], log: () => undefined, signal: new AbortController().signal }),
      expected,
    );
    await assert.rejects(provisioner.plan(buildInput(directory, 'start', null)), expected);
    await assert.rejects(provisioner.apply(buildInput(directory, 'start', null)), expected);
    await assert.rejects(
      findTerraform(join(empty, 'terraform'), {}),
      (error: unknown) => error instanceof ProvisionerError && error.message.includes('empty-bin/terraform is not an executable file'),
    );
  });
});

describe('terraform variable reader', () => {
  it('reads names, descriptions, types, defaults and sensitivity', () => {
    const source = `
# A comment with variable "commented" {}
terraform {
  required_version = ">= 1.0"
}

variable "region" {
  description = "Where the workspace runs: {braces} and \\"quotes\\" are fine"
  type        = string
  default     = "eu-west-1"
}

variable "cpus" {
  type    = number
  default = 2 // two is plenty
  validation {
    condition     = var.cpus > 0 && var.cpus < 64
    error_message = "default = 99 inside a nested block is not the default }"
  }
}

variable "token" {
  sensitive = true
}

variable "tags" {
  type = list(string)
  default = [
    "a",
    "b",
  ]
}

/* variable "blocked" { default = 1 } */
variable "enabled" { default = true }
variable "optional" {
  default = null
}
variable "motd" {
  default = <<-EOT
    Hello
      world }
  EOT
}
resource "terraform_data" "x" {}
`;
    assert.deepEqual(readTerraformVariables(source), [
      {
        name: 'region',
        description: 'Where the workspace runs: {braces} and "quotes" are fine',
        type: 'string',
        default_value: 'eu-west-1',
        required: false,
        sensitive: false,
      },
      { name: 'cpus', description: '', type: 'number', default_value: '2', required: false, sensitive: false },
      { name: 'token', description: '', type: 'string', default_value: '', required: true, sensitive: true },
      { name: 'tags', description: '', type: 'string', default_value: '[\n    "a",\n    "b",\n  ]', required: false, sensitive: false },
      { name: 'enabled', description: '', type: 'bool', default_value: 'true', required: false, sensitive: false },
      { name: 'optional', description: '', type: 'string', default_value: '', required: false, sensitive: false },
      { name: 'motd', description: '', type: 'string', default_value: 'Hello\n  world }\n', required: false, sensitive: false },
    ]);
  });
});

describe('terraform provisioner parse', () => {
  it('reads the variables of every top-level .tf file and the README, leaving out the ones Cove sets', async () => {
    const fake = join(scratch, 'fake-terraform');
    await writeFile(fake, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const directory = await templateDir({
      'main.tf': 'variable "base" {\n  default = "/srv"\n}\nvariable "cove_start_count" {\n  type = number\n}\n',
      'vars.tf': 'variable "key" {\n  description = "An API key"\n  sensitive = true\n}\n',
      'README.md': '# Terraform\n',
    });
    const provisioner = createTerraformProvisioner({ terraformPath: fake });
    const parseInput = (values: { name: string; value: string }[]) => ({
      directory,
      variableValues: values,
      log: () => undefined,
      signal: new AbortController().signal,
    });
    await assert.rejects(
      provisioner.parse(parseInput([])),
      (error: unknown) => error instanceof ProvisionerError && error.code === 'REQUIRED_TEMPLATE_VARIABLES' && /key/.test(error.message),
    );
    const parsed = await provisioner.parse(parseInput([{ name: 'key', value: 'k-1' }]));
    assert.equal(parsed.readme, '# Terraform\n');
    assert.deepEqual(parsed.variables, [
      { name: 'base', description: '', type: 'string', default_value: '/srv', required: false, sensitive: false, value: '/srv' },
      { name: 'key', description: 'An API key', type: 'string', default_value: '', required: true, sensitive: true, value: 'k-1' },
    ]);
    assert.deepEqual(parsed.parameters, []);
  });

  it('maps terraform show output to resources without agents', () => {
    const resources = resourcesOf({
      resources: [
        { mode: 'managed', type: 'terraform_data', name: 'box' },
        { mode: 'data', type: 'external', name: 'lookup' },
      ],
      child_modules: [{ resources: [{ mode: 'managed', type: 'local_file', name: 'f' }] }],
    });
    assert.deepEqual(
      resources.map((resource) => [resource.type, resource.name, resource.agents.length]),
      [
        ['terraform_data', 'box', 0],
        ['local_file', 'f', 0],
      ],
    );
  });
});

const terraformPath = await findTerraform(undefined, process.env).catch(() => undefined);

describe('terraform provisioner with terraform', { skip: terraformPath === undefined && 'no terraform binary on this machine' }, () => {
  const MAIN_TF = `
variable "cove_start_count" {
  type    = number
  default = 1
}
variable "greeting" {
  default = "hello"
}
resource "terraform_data" "box" {
  count = var.cove_start_count
  input = "\${var.greeting} from \${var.cove_workspace_name}"
}
variable "cove_workspace_name" {
  default = ""
}
output "greeting" {
  value = var.greeting
}
`;

  it('plans, applies with the previous state, stops through the start count and destroys on delete', async () => {
    const directory = await templateDir({ 'main.tf': MAIN_TF });
    const provisioner = createTerraformProvisioner();
    const values = { variableValues: [{ name: 'greeting', value: 'hi' }] };
    const plan = await provisioner.plan(buildInput(directory, 'start', null, [], values));
    assert.deepEqual(
      plan.resources.map((resource) => [resource.type, resource.name]),
      [['terraform_data', 'box']],
    );

    const logs: ProvisionerLog[] = [];
    const started = await provisioner.apply(buildInput(directory, 'start', null, logs, values));
    assert.deepEqual(
      started.resources.map((resource) => [resource.type, resource.name, resource.agents.length]),
      [['terraform_data', 'box', 0]],
    );
    const state = JSON.parse(started.state.toString('utf8')) as {
      resources: { instances: { attributes: { input: { value: string } } }[] }[];
    };
    assert.equal(state.resources[0]?.instances[0]?.attributes.input.value, 'hi from dev', 'variables and workspace values reach terraform');
    assert.ok(
      logs.some((line) => line.stage === 'Starting workspace' && /Apply complete! Resources: 1 added/.test(line.output)),
      JSON.stringify(logs),
    );
    assert.ok(logs.some((line) => line.stage === 'Initializing terraform'));

    const againLogs: ProvisionerLog[] = [];
    const again = await provisioner.apply(buildInput(directory, 'start', started.state, againLogs, values));
    assert.ok(
      againLogs.some((line) => /Resources: 0 added, 0 changed, 0 destroyed/.test(line.output)),
      'the previous state is used',
    );
    assert.equal(again.resources.length, 1);

    const stopped = await provisioner.apply(buildInput(directory, 'stop', again.state, [], values));
    assert.deepEqual(stopped.resources, []);
    const stopPlan = await provisioner.plan(buildInput(directory, 'delete', stopped.state, [], values));
    assert.deepEqual(stopPlan.resources, []);
    const deleted = await provisioner.apply(buildInput(directory, 'delete', stopped.state, [], values));
    assert.equal(deleted.state.length, 0);
  });

  it("fails with terraform's own last lines and keeps the state it had", async () => {
    const directory = await templateDir({ 'main.tf': 'resource "terraform_data" "x" {\n  input = var.missing\n}\n' });
    const previous = Buffer.from('{"version":4,"terraform_version":"1.5.0","serial":1,"lineage":"x","outputs":{},"resources":[]}');
    await assert.rejects(createTerraformProvisioner().apply(buildInput(directory, 'start', previous)), (error: unknown) => {
      assert.ok(error instanceof ProvisionerError);
      assert.match(error.message, /^terraform (init|apply) failed \(exit code 1\):\n[\s\S]*missing/);
      assert.deepEqual(error.state, previous);
      return true;
    });
  });
});
