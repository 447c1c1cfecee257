import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { detectProvisioner } from '../../src/provisioner/detect-provisioner.js';
import type { Compute, JsonValue } from '../../src/provisioner/native/compute.js';
import { InterpolationError, interpolate, type InterpolationScope } from '../../src/provisioner/native/interpolate.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import { loadTemplateFile } from '../../src/provisioner/native/template-file.js';
import { resolveVariables } from '../../src/provisioner/native/variables.js';
import {
  ProvisionerError,
  type BuildInput,
  type ParseInput,
  type ProvisionerLog,
  type Transition,
} from '../../src/provisioner/provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-native-'));
after(() => rm(scratch, { recursive: true, force: true }));

let counter = 0;
/** A fresh template directory holding these files. */
async function templateDir(files: Record<string, string>): Promise<string> {
  const directory = join(scratch, `t${++counter}`);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(directory, path)), { recursive: true });
    await writeFile(join(directory, path), content);
  }
  await mkdir(directory, { recursive: true });
  return directory;
}

function parseInput(directory: string, variableValues: { name: string; value: string }[] = [], logs: ProvisionerLog[] = []): ParseInput {
  return { directory, variableValues, log: (line) => logs.push(line), signal: new AbortController().signal };
}

function buildInput(directory: string, overrides: Partial<BuildInput> = {}): BuildInput {
  return {
    ...parseInput(directory),
    transition: 'start',
    parameterValues: [],
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'user-1', start_count: 1 },
    accessUrl: 'http://cove.test',
    previousState: null,
    ...overrides,
  };
}

/** The error a promise rejects with, which must be a ProvisionerError. */
async function provisionerError(promise: Promise<unknown>): Promise<ProvisionerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProvisionerError, `expected a ProvisionerError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

/** The message loading `template.yaml` fails with. */
async function loadError(yaml: string, files: Record<string, string> = {}): Promise<string> {
  return (await provisionerError(loadTemplateFile(await templateDir({ 'template.yaml': yaml, ...files })))).message;
}

const DESIGN_EXAMPLE = `description: Python workspace on this host
icon: /icon/python.svg
variables:
  - name: base_dir
    default: /var/lib/cove/workspaces
parameters:
  - name: python
    display_name: Python version
    type: string
    default: "3.12"
    mutable: true
    options:
      - { name: "3.11", value: "3.11" }
      - { name: "3.12", value: "3.12" }
  - name: cpus
    type: number
    default: 2
    validation: { min: 1, max: 8, monotonic: increasing }
presets:
  - { name: Small, default: true, parameters: { cpus: "1" } }
resources:
  - name: home
    type: directory
    path: \${{ variables.base_dir }}/\${{ workspace.owner }}/\${{ workspace.name }}
  - name: dev
    type: process
    agents:
      - name: main
        dir: \${{ resources.home.path }}
        env: { PYTHON_VERSION: "\${{ parameters.python }}" }
        connection_timeout: 120
        display_apps: [web_terminal, ssh_helper, port_forwarding_helper]
        scripts:
          - display_name: Install tools
            script: ./install.sh
            run_on_start: true
            start_blocks_login: true
            timeout: 300
        apps:
          - slug: notebook
            display_name: Notebook
            url: http://localhost:8888
            share: owner
            healthcheck: { url: http://localhost:8888/api, interval: 5, threshold: 6 }
    metadata:
      - { key: python, value: "\${{ parameters.python }}" }
`;

describe('native provisioner: parse', () => {
  it('reads the example of the design page', async () => {
    const directory = await templateDir({
      'template.yaml': DESIGN_EXAMPLE,
      'install.sh': 'pip install ${{ not-a-reference }}\n',
      'README.md': '# Python\n',
    });
    const result = await createNativeProvisioner().parse(parseInput(directory));
    assert.equal(result.readme, '# Python\n');
    assert.deepEqual(result.metadata, { description: 'Python workspace on this host', icon: '/icon/python.svg' });
    assert.deepEqual(result.variables, [
      {
        name: 'base_dir',
        description: '',
        type: 'string',
        default_value: '/var/lib/cove/workspaces',
        required: false,
        sensitive: false,
        value: '/var/lib/cove/workspaces',
      },
    ]);
    const [python, cpus] = result.parameters;
    assert.deepEqual(python, {
      name: 'python',
      display_name: 'Python version',
      description: '',
      type: 'string',
      form_type: 'radio',
      mutable: true,
      ephemeral: false,
      required: false,
      default_value: '3.12',
      icon: '',
      order: 0,
      options: [
        { name: '3.11', description: '', value: '3.11', icon: '' },
        { name: '3.12', description: '', value: '3.12', icon: '' },
      ],
      validation_min: null,
      validation_max: null,
      validation_monotonic: '',
      validation_regex: '',
      validation_error: '',
    });
    assert.equal(cpus?.default_value, '2');
    assert.equal(cpus?.validation_min, 1);
    assert.equal(cpus?.validation_max, 8);
    assert.equal(cpus?.validation_monotonic, 'increasing');
    assert.deepEqual(result.presets, [{ name: 'Small', default: true, parameters: [{ name: 'cpus', value: '1' }] }]);
    assert.deepEqual(result.externalAuth, []);

    assert.deepEqual(
      result.resources.map((resource) => [resource.name, resource.type]),
      [
        ['home', 'directory'],
        ['dev', 'process'],
      ],
    );
    const agent = result.resources[1]?.agents[0];
    assert.equal(agent?.name, 'main');
    assert.equal(agent?.directory, '/var/lib/cove/workspaces', 'the import has no workspace, so its names are empty');
    assert.deepEqual(agent?.env, { PYTHON_VERSION: '3.12' });
    assert.equal(agent?.auth_token, '');
    assert.equal(agent?.connection_timeout_seconds, 120);
    assert.deepEqual(agent?.scripts, [
      {
        display_name: 'Install tools',
        // `./install.sh` names a file of the template: its content is inlined, literally.
        script: 'pip install ${{ not-a-reference }}\n',
        cron: '',
        run_on_start: true,
        run_on_stop: false,
        start_blocks_login: true,
        timeout: 300,
        log_path: '',
      },
    ]);
    assert.deepEqual(agent?.apps, [
      {
        slug: 'notebook',
        display_name: 'Notebook',
        url: 'http://localhost:8888',
        command: '',
        icon: '',
        external: false,
        subdomain: false,
        share: 'owner',
        hidden: false,
        open_in: 'slim-window',
        group: '',
        healthcheck: { url: 'http://localhost:8888/api', interval: 5, threshold: 6 },
      },
    ]);
    assert.deepEqual(result.resources[1]?.metadata, [{ key: 'python', value: '3.12', sensitive: false }]);
  });

  it('accepts an empty file as a template without anything', async () => {
    const result = await createNativeProvisioner().parse(parseInput(await templateDir({ 'template.yaml': '' })));
    assert.deepEqual(
      { ...result },
      { readme: '', variables: [], parameters: [], presets: [], externalAuth: [], resources: [], metadata: {} },
    );
  });

  it('keeps the text of numbers where text is meant', async () => {
    const file = await loadTemplateFile(
      await templateDir({
        'template.yaml': 'parameters:\n  - name: python\n    default: 3.10\n    options:\n      - { name: 3.10, value: 3.10 }\n',
      }),
    );
    assert.equal(file.parameters[0]?.default_value, '3.10');
    assert.equal(file.parameters[0]?.options[0]?.value, '3.10');
  });

  it('reads list(string) defaults written as YAML lists and external auth in both forms', async () => {
    const file = await loadTemplateFile(
      await templateDir({
        'template.yaml': [
          'parameters:',
          '  - name: tools',
          '    type: list(string)',
          '    default: [git, make]',
          'external_auth:',
          '  - github',
          '  - { id: gitlab, optional: true }',
        ].join('\n'),
      }),
    );
    assert.equal(file.parameters[0]?.default_value, '["git","make"]');
    assert.equal(file.parameters[0]?.form_type, 'tag-select');
    assert.deepEqual(file.externalAuth, [
      { id: 'github', optional: false },
      { id: 'gitlab', optional: true },
    ]);
  });

  it('fails without a template.yaml', async () => {
    const error = await provisionerError(createNativeProvisioner().parse(parseInput(await templateDir({}))));
    assert.equal(error.message, 'the template has no template.yaml');
  });
});

describe('native provisioner: invalid template.yaml', () => {
  it('names the line and the field of a bad enum value', async () => {
    const yaml = ['parameters:', '  - name: a', '    type: string', '  - name: b', '    type: strnig', ''].join('\n');
    assert.equal(await loadError(yaml), 'template.yaml:5: parameters[1].type must be one of string, number, bool, list(string)');
  });

  it('lists every problem, in line order, with structured issues', async () => {
    const yaml = [
      'icon: 1',
      'bogus: true',
      'parameters:',
      '  - display_name: No name',
      '    mutable: yes please',
      'resources:',
      '  - name: Bad_Name',
      '    type: directory',
      '    path: /x',
    ].join('\n');
    const error = await provisionerError(loadTemplateFile(await templateDir({ 'template.yaml': yaml })));
    assert.deepEqual(error.message.split('\n'), [
      'template.yaml:2: bogus is not a known field (known fields: description, icon, variables, parameters, presets, external_auth, resources)',
      'template.yaml:4: parameters[0].name is required',
      'template.yaml:5: parameters[0].mutable must be true or false',
      'template.yaml:7: resources[0].name must be lowercase letters and digits with single hyphens between them (got "Bad_Name")',
    ]);
    assert.deepEqual(error.issues[0], {
      file: 'template.yaml',
      line: 2,
      field: 'bogus',
      message: 'is not a known field (known fields: description, icon, variables, parameters, presets, external_auth, resources)',
    });
  });

  it('reports YAML syntax errors with their line', async () => {
    const message = await loadError('parameters:\n  - name: a\n    type: [string\nresources: []\n');
    // The parser notices where the flow sequence should have ended.
    assert.equal(message, 'template.yaml:4: Flow sequence in block collection must be sufficiently indented and end with a ]');
  });

  it('refuses duplicate names', async () => {
    const yaml = [
      'variables:',
      '  - { name: v }',
      '  - { name: v }',
      'parameters:',
      '  - { name: p, default: "" }',
      '  - { name: p, default: "" }',
      'resources:',
      '  - name: one',
      '    type: process',
      '    agents:',
      '      - name: main',
      '        apps:',
      '          - { slug: web, url: "http://localhost" }',
      '          - { slug: web, url: "http://localhost:2" }',
      '  - name: one',
      '    type: process',
      '    agents:',
      '      - name: main',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:3: variables[1].name "v" is already used by variables[0]',
      'template.yaml:6: parameters[1].name "p" is already used by parameters[0]',
      'template.yaml:14: resources[0].agents[0].apps[1].slug "web" is already used by resources[0].agents[0].apps[0]',
      'template.yaml:15: resources[1].name "one" is already used by resources[0]',
      'template.yaml:18: resources[1].agents[0].name "main" is already used by resources[0].agents[0]; agent names are unique within a template',
    ]);
  });

  it('checks app slugs against the slug pattern', async () => {
    const yaml =
      'resources:\n  - name: r\n    type: process\n    agents:\n      - name: a\n        apps:\n          - { slug: "-web", url: "http://x" }\n';
    assert.equal(
      await loadError(yaml),
      'template.yaml:7: resources[0].agents[0].apps[0].slug must be lowercase letters and digits with single hyphens between them (got "-web")',
    );
  });

  it('checks each compute type for its own fields', async () => {
    const yaml = [
      'resources:',
      '  - name: c',
      '    type: docker',
      '  - name: d',
      '    type: directory',
      '    path: /tmp/x',
      '    agents: []',
      '  - name: e',
      '    type: kubernetes',
      '  - name: s',
      '    type: process',
      '    agents:',
      '      - name: a',
      '        apps:',
      '          - { slug: x, share: everyone, url: "http://x" }',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:2: resources[0].image is required',
      'template.yaml:7: resources[1].agents is not a known field (known fields: name, type, hide, icon, daily_cost, metadata, path)',
      'template.yaml:9: resources[2].type must be one of process, docker, hook, directory',
      'template.yaml:15: resources[3].agents[0].apps[0].share must be one of owner, authenticated, organization, public',
    ]);
  });

  it('requires hook commands to be files inside the template', async () => {
    const yaml = [
      'resources:',
      '  - name: vm',
      '    type: hook',
      '    create: hooks/create.sh',
      '    start: hooks/start.sh',
      '    stop: ../outside.sh',
      '    delete: /bin/true',
    ].join('\n');
    assert.deepEqual((await loadError(yaml, { 'hooks/create.sh': '#!/bin/sh\n' })).split('\n'), [
      'template.yaml:5: resources[0].start "hooks/start.sh" does not exist in the template',
      'template.yaml:6: resources[0].stop must be a path inside the template (got "../outside.sh")',
      'template.yaml:7: resources[0].delete must be a path inside the template (got "/bin/true")',
    ]);
    assert.equal(await loadError('resources:\n  - name: vm\n    type: hook\n'), 'template.yaml:2: resources[0].start is required');
  });

  it('checks option values against the type and defaults against the options', async () => {
    const yaml = [
      'parameters:',
      '  - name: n',
      '    type: number',
      '    options:',
      '      - { name: one, value: "1" }',
      '      - { name: many, value: lots }',
      '  - name: s',
      '    default: c',
      '    options:',
      '      - { name: A, value: a }',
      '      - { name: B, value: b }',
      '  - name: flag',
      '    type: bool',
      '    default: maybe',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:6: parameters[0].options[1].value must be an integer for a number parameter (got "lots")',
      'template.yaml:8: parameters[1].default value "c" must match one of options: [a, b]',
      'template.yaml:14: parameters[2].default value "maybe" must be true or false',
    ]);
  });

  it('validates defaults against min, max and regex, and validation against the type', async () => {
    const yaml = [
      'parameters:',
      '  - name: low',
      '    type: number',
      '    default: 0',
      '    validation: { min: 1, max: 8 }',
      '  - name: high',
      '    type: number',
      '    default: 9',
      '    validation: { max: 8, error: "between {min} and {max}, not {value}" }',
      '  - name: inverted',
      '    type: number',
      '    default: 3',
      '    validation: { min: 5, max: 2 }',
      '  - name: word',
      '    default: "two words"',
      '    validation: { regex: "^\\\\w+$", error: Only one word }',
      '  - name: label',
      '    validation: { monotonic: increasing }',
      '  - name: count',
      '    type: number',
      '    validation: { regex: "^1" }',
      '  - name: fraction',
      '    type: number',
      '    default: 1.5',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:4: parameters[0].default value 0 is less than the minimum 1',
      'template.yaml:8: parameters[1].default between  and 8, not 9',
      'template.yaml:13: parameters[2].validation.min must not be greater than validation.max (5 > 2)',
      'template.yaml:15: parameters[3].default Only one word (value "two words" does not match "^\\w+$")',
      'template.yaml:18: parameters[4].validation.monotonic is only allowed for number parameters',
      'template.yaml:21: parameters[5].validation.regex is only allowed for string parameters',
      'template.yaml:24: parameters[6].default value "1.5" must be an integer',
    ]);
  });

  it('refuses ephemeral parameters that are immutable or have no default', async () => {
    const yaml = 'parameters:\n  - name: once\n    ephemeral: true\n';
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:3: parameters[0].ephemeral requires mutable: true',
      'template.yaml:3: parameters[0].ephemeral requires a default',
    ]);
  });

  it('checks presets against the parameters', async () => {
    const yaml = [
      'parameters:',
      '  - { name: cpus, type: number, default: 2, validation: { min: 1 } }',
      'presets:',
      '  - { name: Tiny, default: true, parameters: { cpus: "0" } }',
      '  - { name: Other, default: true, parameters: { memory: "4" } }',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:4: presets[0].parameters.cpus value 0 is less than the minimum 1',
      'template.yaml:5: presets[1].parameters.memory is not a parameter of this template',
      'template.yaml:5: presets[1].default only one preset may be the default (presets[0] already is)',
    ]);
  });

  it('checks variable defaults against their type', async () => {
    assert.equal(
      await loadError('variables:\n  - name: n\n    type: number\n    default: many\n'),
      'template.yaml:4: variables[0].default must be a number for a number variable (got "many")',
    );
  });
});

describe('interpolation', () => {
  const scope: InterpolationScope = {
    parameters: { python: '3.12', sneaky: '${{ variables.secret }}' },
    variables: { base_dir: '/srv', secret: 'hunter2' },
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'u-1', transition: 'start', start_count: '1' },
    resource: (name, field) => (name === 'home' && field === 'path' ? '/srv/alice/dev' : undefined),
  };

  it('expands every kind of reference, with or without spaces', () => {
    assert.equal(
      interpolate(
        '${{variables.base_dir}}/${{ workspace.owner }}/${{ workspace.name }} py${{ parameters.python }} ${{ resources.home.path }} #${{ workspace.start_count }}',
        scope,
        'f',
      ),
      '/srv/alice/dev py3.12 /srv/alice/dev #1',
    );
    assert.equal(interpolate('no expressions here: ${HOME} $(pwd) {{x}}', scope, 'f'), 'no expressions here: ${HOME} $(pwd) {{x}}');
  });

  it('writes $${{ as a literal ${{ and never expands inserted values again', () => {
    assert.equal(interpolate('$${{ parameters.python }}', scope, 'f'), '${{ parameters.python }}');
    assert.equal(interpolate('${{ parameters.sneaky }}', scope, 'f'), '${{ variables.secret }}');
  });

  it('refuses unknown references, naming the field and the reference', () => {
    for (const reference of [
      'parameters.pyton',
      'variables.nope',
      'workspace.password',
      'resources.home.size',
      'resources.gone.path',
      'env.HOME',
      'parameters',
      'parameters.python.length',
    ]) {
      assert.throws(
        () => interpolate(`x \${{ ${reference} }}`, scope, 'resources[0].env.X'),
        (error: unknown) =>
          error instanceof InterpolationError && error.message === `resources[0].env.X has an unknown reference "${reference}"`,
        reference,
      );
    }
  });

  it('evaluates nothing: expressions that are not references are refused', () => {
    for (const expression of ['parameters.python + 1', 'process.exit(1)', 'parameters["python"]', 'a || b', '']) {
      assert.throws(
        () => interpolate(`\${{ ${expression} }}`, scope, 'f'),
        (error: unknown) => error instanceof InterpolationError && /is not a reference/.test(error.message),
        expression,
      );
    }
    assert.throws(() => interpolate('${{ parameters.python', scope, 'f'), /f has a "\$\{\{" without a closing "\}\}"/);
  });

  it('reports unknown references in template.yaml with the line and the field path', async () => {
    const yaml = [
      'resources:',
      '  - name: dev',
      '    type: process',
      '    agents:',
      '      - name: main',
      '        env:',
      '          PYTHON: "${{ parameters.pyton }}"',
      '          OK: "${{ workspace.name }}"',
      '        dir: ${{ resources.home.path }}',
    ].join('\n');
    assert.deepEqual((await loadError(yaml)).split('\n'), [
      'template.yaml:7: resources[0].agents[0].env.PYTHON has an unknown reference "parameters.pyton"',
      'template.yaml:9: resources[0].agents[0].dir has an unknown reference "resources.home.path"',
    ]);
  });

  it('resolves references between resources in any order and refuses cycles', async () => {
    const ordered = await createNativeProvisioner().plan(
      buildInput(
        await templateDir({
          'template.yaml': [
            'resources:',
            '  - name: dev',
            '    type: process',
            '    agents: [{ name: main, dir: "${{ resources.home.path }}/src" }]',
            '  - name: home',
            '    type: directory',
            '    path: /srv/${{ workspace.owner }}//${{ workspace.name }}/',
          ].join('\n'),
        }),
      ),
    );
    assert.equal(ordered.resources[0]?.agents[0]?.directory, '/srv/alice/dev/src');
    const cycle = [
      'resources:',
      '  - name: a',
      '    type: directory',
      '    path: /x/${{ resources.b.path }}',
      '  - name: b',
      '    type: directory',
      '    path: /y/${{ resources.a.path }}',
    ].join('\n');
    assert.match(
      await loadError(cycle),
      /^template\.yaml:4: resources\[0\]\.path has a reference cycle: resources\.a\.path -> resources\.b\.path -> resources\.a\.path/,
    );
  });
});

describe('template variables', () => {
  const declarations = [
    { name: 'region', description: '', type: 'string' as const, default_value: '', required: true, sensitive: false },
    { name: 'token', description: '', type: 'string' as const, default_value: '', required: true, sensitive: true },
    { name: 'size', description: '', type: 'number' as const, default_value: '2', required: false, sensitive: false },
  ];

  it('fails with REQUIRED_TEMPLATE_VARIABLES naming every missing variable', () => {
    assert.throws(
      () => resolveVariables(declarations, [{ name: 'region', value: '' }]),
      (error: unknown) =>
        error instanceof ProvisionerError &&
        error.code === 'REQUIRED_TEMPLATE_VARIABLES' &&
        error.message === 'required template variables need values: region, token',
    );
  });

  it('takes supplied values over defaults and checks their type', () => {
    const resolved = resolveVariables(declarations, [
      { name: 'region', value: 'eu' },
      { name: 'token', value: 's3cret' },
    ]);
    assert.deepEqual(
      resolved.map((variable) => [variable.name, variable.value]),
      [
        ['region', 'eu'],
        ['token', 's3cret'],
        ['size', '2'],
      ],
    );
    assert.throws(
      () =>
        resolveVariables(declarations, [
          { name: 'region', value: 'eu' },
          { name: 'token', value: 't' },
          { name: 'size', value: 'big' },
        ]),
      /template variable "size" must be a number \(got "big"\)/,
    );
  });

  it('makes parse fail when a required variable of template.yaml has no value, and warns about unknown ones', async () => {
    const directory = await templateDir({ 'template.yaml': 'variables:\n  - name: base_dir\n  - name: region\n    default: eu\n' });
    const error = await provisionerError(createNativeProvisioner().parse(parseInput(directory)));
    assert.equal(error.code, 'REQUIRED_TEMPLATE_VARIABLES');
    assert.equal(error.message, 'required template variables need values: base_dir');
    const logs: ProvisionerLog[] = [];
    const result = await createNativeProvisioner().parse(
      parseInput(
        directory,
        [
          { name: 'base_dir', value: '/srv' },
          { name: 'typo', value: 'x' },
        ],
        logs,
      ),
    );
    assert.deepEqual(
      result.variables.map((variable) => [variable.name, variable.required, variable.value]),
      [
        ['base_dir', true, '/srv'],
        ['region', false, 'eu'],
      ],
    );
    assert.ok(logs.some((line) => line.level === 'warn' && line.output.includes('"typo"')));
  });
});

const PLAN_TEMPLATE = [
  'variables:',
  '  - { name: base_dir, default: /srv/cove }',
  'parameters:',
  '  - name: python',
  '    default: "3.12"',
  '    options: [{ name: "3.11", value: "3.11" }, { name: "3.12", value: "3.12" }]',
  '  - { name: size, type: number, validation: { min: 1, max: 4 } }',
  'resources:',
  '  - name: home',
  '    type: directory',
  '    path: ${{ variables.base_dir }}/${{ workspace.owner }}/${{ workspace.name }}',
  '  - name: dev',
  '    type: process',
  '    agents:',
  '      - name: main',
  '        dir: ${{ resources.home.path }}',
  '        env: { PY: "${{ parameters.python }}", SIZE: "${{ parameters.size }}", WS: "${{ workspace.id }}:${{ workspace.owner_id }}:${{ workspace.transition }}" }',
  '    metadata:',
  '      - { key: size, value: "${{ parameters.size }}" }',
].join('\n');

describe('native provisioner: plan', () => {
  it('uses the given parameter values, the defaults for the rest, and the workspace', async () => {
    const directory = await templateDir({ 'template.yaml': PLAN_TEMPLATE });
    const plan = await createNativeProvisioner().plan(buildInput(directory, { parameterValues: [{ name: 'size', value: '3' }] }));
    assert.deepEqual(
      plan.resources.map((resource) => resource.name),
      ['home', 'dev'],
    );
    const agent = plan.resources[1]?.agents[0];
    assert.equal(agent?.directory, '/srv/cove/alice/dev');
    assert.deepEqual(agent?.env, { PY: '3.12', SIZE: '3', WS: 'ws-1:user-1:start' });
    assert.equal(agent?.auth_token, '');
    assert.deepEqual(plan.resources[1]?.metadata, [{ key: 'size', value: '3', sensitive: false }]);
  });

  it('leaves only directories on stop and nothing on delete', async () => {
    const directory = await templateDir({ 'template.yaml': PLAN_TEMPLATE });
    const values = [{ name: 'size', value: '1' }];
    const stop = await createNativeProvisioner().plan(buildInput(directory, { transition: 'stop', parameterValues: values }));
    assert.deepEqual(
      stop.resources.map((resource) => resource.name),
      ['home'],
    );
    const remove = await createNativeProvisioner().plan(buildInput(directory, { transition: 'delete', parameterValues: values }));
    assert.deepEqual(remove.resources, []);
  });

  it('refuses missing required parameters and invalid values', async () => {
    const directory = await templateDir({ 'template.yaml': PLAN_TEMPLATE });
    const provisioner = createNativeProvisioner();
    assert.equal(
      (await provisionerError(provisioner.plan(buildInput(directory)))).message,
      'Parameter "size" is required but not provided',
    );
    assert.equal(
      (await provisionerError(provisioner.plan(buildInput(directory, { parameterValues: [{ name: 'size', value: '5' }] })))).message,
      'Unable to validate parameter "size": value 5 is more than the maximum 4',
    );
    assert.equal(
      (
        await provisionerError(
          provisioner.plan(
            buildInput(directory, {
              parameterValues: [
                { name: 'size', value: '1' },
                { name: 'python', value: '2.7' },
              ],
            }),
          ),
        )
      ).message,
      'Unable to validate parameter "python": value "2.7" must match one of options: [3.11, 3.12]',
    );
  });

  it('does not expand references inside parameter values', async () => {
    const directory = await templateDir({ 'template.yaml': PLAN_TEMPLATE });
    const plan = await createNativeProvisioner().plan(
      buildInput(directory, {
        parameterValues: [{ name: 'size', value: '1' }],
        workspace: { id: '${{ variables.base_dir }}', name: 'dev', owner: 'alice', owner_id: 'u', start_count: 1 },
      }),
    );
    assert.equal(plan.resources[1]?.agents[0]?.env['WS'], '${{ variables.base_dir }}:u:start');
  });

  it('refuses a directory path that is not absolute', async () => {
    const directory = await templateDir({
      'template.yaml': 'variables: [{ name: base }]\nresources:\n  - { name: home, type: directory, path: "${{ variables.base }}/x" }\n',
    });
    const error = await provisionerError(
      createNativeProvisioner().plan({ ...buildInput(directory), variableValues: [{ name: 'base', value: 'relative' }] }),
    );
    assert.equal(error.message, 'template.yaml: resources[0].path must be an absolute path or start with ~/ (got "relative/x")');
  });
});

describe('native provisioner: apply', () => {
  const DIRECTORY_TEMPLATE = [
    'variables: [{ name: base_dir }]',
    'resources:',
    '  - name: home',
    '    type: directory',
    '    path: ${{ variables.base_dir }}/${{ workspace.owner }}/${{ workspace.name }}',
  ].join('\n');

  async function directoryBuild(
    transition: Transition,
    base: string,
    previousState: Buffer | null,
    options: { directoryBase?: string; name?: string } = {},
  ) {
    const directory = await templateDir({ 'template.yaml': DIRECTORY_TEMPLATE });
    const provisioner = createNativeProvisioner(options.directoryBase === undefined ? {} : { directoryBase: options.directoryBase });
    return provisioner.apply({
      ...buildInput(directory, { transition, previousState }),
      variableValues: [{ name: 'base_dir', value: base }],
      workspace: { id: 'ws-1', name: options.name ?? 'dev', owner: 'alice', owner_id: 'u-1', start_count: transition === 'start' ? 1 : 0 },
    });
  }

  it('creates the directory on start, keeps it on stop and removes exactly it on delete', async () => {
    const base = join(scratch, 'apply-base');
    const path = join(base, 'alice', 'dev');
    const started = await directoryBuild('start', base, null);
    assert.ok(existsSync(path));
    assert.deepEqual(
      started.resources.map((resource) => resource.name),
      ['home'],
    );
    assert.deepEqual(JSON.parse(started.state.toString('utf8')), {
      version: 1,
      resources: [{ name: 'home', type: 'directory', state: { path, created: [path] } }],
    });
    await writeFile(join(path, 'work.txt'), 'keep me');

    const stopped = await directoryBuild('stop', base, started.state);
    assert.ok(existsSync(join(path, 'work.txt')), 'a stop keeps the directory and what is in it');
    assert.deepEqual(
      stopped.resources.map((resource) => resource.name),
      ['home'],
    );
    assert.deepEqual(stopped.state, started.state);

    const restarted = await directoryBuild('start', base, stopped.state);
    assert.deepEqual(JSON.parse(restarted.state.toString('utf8')).resources[0].state.created, [path]);
    assert.ok(existsSync(join(path, 'work.txt')));

    const deleted = await directoryBuild('delete', base, restarted.state);
    assert.equal(existsSync(path), false);
    assert.ok(existsSync(join(base, 'alice')), 'only the directory the resource created is removed');
    assert.deepEqual(deleted.resources, []);
    assert.equal(deleted.state.length, 0);
  });

  it('deletes by the state, even after the workspace moved, and never a directory it did not create', async () => {
    const base = join(scratch, 'apply-moves');
    const existing = join(base, 'alice', 'old');
    await mkdir(existing, { recursive: true });
    const first = await directoryBuild('start', base, null, { name: 'old' });
    assert.deepEqual(JSON.parse(first.state.toString('utf8')).resources[0].state, { path: existing, created: [] });
    const renamed = await directoryBuild('start', base, first.state, { name: 'new' });
    assert.deepEqual(JSON.parse(renamed.state.toString('utf8')).resources[0].state.created, [join(base, 'alice', 'new')]);
    await directoryBuild('delete', base, renamed.state);
    assert.equal(existsSync(join(base, 'alice', 'new')), false);
    assert.ok(existsSync(existing), 'the directory that existed before is kept');
  });

  it('refuses paths outside the allowed base', async () => {
    const allowed = join(scratch, 'allowed');
    await mkdir(allowed, { recursive: true });
    const error = await provisionerError(directoryBuild('start', join(scratch, 'elsewhere'), null, { directoryBase: allowed }));
    assert.match(error.message, /refusing to manage .*elsewhere.*: it is not inside the allowed directory/);
    assert.equal(existsSync(join(scratch, 'elsewhere')), false);
    await directoryBuild('start', allowed, null, { directoryBase: allowed });
    assert.ok(existsSync(join(allowed, 'alice', 'dev')));
    const escape = await provisionerError(directoryBuild('start', `${allowed}/../escaped`, null, { directoryBase: allowed }));
    assert.match(escape.message, /not inside the allowed directory/);
  });

  it('fails before any side effect when a compute cannot run (no agent command configured)', async () => {
    const base = join(scratch, 'no-process');
    const directory = await templateDir({
      'template.yaml': `resources:\n  - { name: home, type: directory, path: "${base}/\${{ workspace.name }}" }\n  - name: dev\n    type: process\n    agents: [{ name: main }]\n`,
    });
    const error = await provisionerError(createNativeProvisioner().apply(buildInput(directory)));
    assert.match(error.message, /^process compute: no agent command is configured on this provisioner/);
    assert.equal(existsSync(base), false);
  });

  it('gives every agent a fresh token per apply, and runs computes in order with their state', async () => {
    const calls: string[] = [];
    const fake: Compute = {
      type: 'process',
      async start({ resource, agents, previous }) {
        calls.push(`start ${resource.name} ${JSON.stringify(previous ?? null)}`);
        return { pid: 42, tokens: agents.map((agent) => agent.auth_token) };
      },
      async stop({ previous }) {
        calls.push(`stop ${JSON.stringify(previous)}`);
        return { stopped: true } as JsonValue;
      },
      async delete({ previous }) {
        calls.push(`delete ${JSON.stringify(previous)}`);
      },
    };
    const base = join(scratch, 'with-process');
    const directory = await templateDir({
      'template.yaml': `resources:\n  - { name: home, type: directory, path: "${base}/\${{ workspace.name }}" }\n  - name: dev\n    type: process\n    agents: [{ name: main, dir: "\${{ resources.home.path }}" }, { name: side }]\n`,
    });
    const provisioner = createNativeProvisioner({ computes: { process: fake } });
    const first = await provisioner.apply(buildInput(directory));
    const second = await provisioner.apply(buildInput(directory, { previousState: first.state }));
    const tokens = (result: typeof first): string[] =>
      result.resources.flatMap((resource) => resource.agents.map((agent) => agent.auth_token));
    assert.equal(tokens(first).length, 2);
    assert.ok(tokens(first).every((token) => /^[0-9a-f-]{36}$/.test(token)));
    assert.equal(new Set([...tokens(first), ...tokens(second)]).size, 4, 'tokens are unique per agent and per build');
    assert.deepEqual(JSON.parse(first.state.toString('utf8')).resources[1].state.tokens, tokens(first));

    const stopped = await provisioner.apply(buildInput(directory, { transition: 'stop', previousState: second.state }));
    assert.deepEqual(
      stopped.resources.map((resource) => resource.name),
      ['home'],
    );
    await provisioner.apply(buildInput(directory, { transition: 'delete', previousState: stopped.state }));
    assert.deepEqual(calls, [
      'start dev null',
      `start dev ${JSON.stringify({ pid: 42, tokens: tokens(first) })}`,
      `stop ${JSON.stringify({ pid: 42, tokens: tokens(second) })}`,
      'delete {"stopped":true}',
    ]);
    assert.equal(existsSync(join(base, 'dev')), false);
  });

  it('keeps the state of what it created when a later compute fails', async () => {
    const base = join(scratch, 'partial');
    const failing: Compute = {
      type: 'process',
      start: async () => {
        throw new Error('spawn failed');
      },
      stop: async ({ previous }) => previous,
      delete: async () => undefined,
    };
    const directory = await templateDir({
      'template.yaml': `resources:\n  - { name: home, type: directory, path: "${base}/x" }\n  - { name: dev, type: process }\n`,
    });
    const error = await provisionerError(createNativeProvisioner({ computes: { process: failing } }).apply(buildInput(directory)));
    assert.equal(error.message, 'spawn failed');
    assert.ok(error.state);
    assert.deepEqual(
      JSON.parse(error.state.toString('utf8')).resources.map((entry: { name: string }) => entry.name),
      ['home'],
    );
  });

  it('refuses a state it did not write', async () => {
    const directory = await templateDir({ 'template.yaml': 'resources: []\n' });
    const error = await provisionerError(
      createNativeProvisioner().apply(buildInput(directory, { transition: 'stop', previousState: Buffer.from('{"foo":1}') })),
    );
    assert.equal(error.message, 'the previous build state is not native provisioner state');
  });
});

describe('detectProvisioner', () => {
  it('picks the provisioner by the files the directory holds', async () => {
    assert.equal(await detectProvisioner(await templateDir({ 'template.yaml': '', 'main.tf': '' })), 'native');
    assert.equal(await detectProvisioner(await templateDir({ 'echo.json': '{}', 'README.md': '' })), 'echo');
    assert.equal(await detectProvisioner(await templateDir({ 'main.tf': '' })), 'terraform');
    assert.equal(await detectProvisioner(await templateDir({ 'README.md': '' })), null);
  });
});
