import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exampleFiles, findTemplateExample, templateExamples, type TemplateExample } from '../../src/provisioner/native/examples/index.js';
import { detectProvisioner } from '../../src/provisioner/detect-provisioner.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-examples-'));
after(() => rm(scratch, { recursive: true, force: true }));

async function writeExample(example: TemplateExample): Promise<string> {
  const directory = join(scratch, example.id);
  for (const file of exampleFiles(example)) {
    await mkdir(dirname(join(directory, file.path)), { recursive: true });
    await writeFile(join(directory, file.path), file.content, { mode: file.mode });
  }
  return directory;
}

const signal = new AbortController().signal;

describe('built-in template examples', () => {
  it('has the examples the design names, with unique slug ids and complete metadata', () => {
    const ids = templateExamples.map((example) => example.id);
    assert.deepEqual(ids, ['local-shell', 'python', 'docker', 'vm-hooks']);
    for (const example of templateExamples) {
      assert.match(example.id, /^[a-z0-9](-?[a-z0-9])*$/);
      assert.ok(example.name && example.description && example.icon && example.tags.length > 0, example.id);
      assert.equal(example.markdown, example.files['README.md'], `${example.id}: the markdown is the README`);
      assert.equal(example.provisioner, 'native');
    }
    assert.equal(findTemplateExample('python'), templateExamples[1]);
    assert.equal(findTemplateExample('nope'), undefined);
  });

  for (const example of templateExamples) {
    it(`${example.id} parses and plans with the native provisioner`, async () => {
      const directory = await writeExample(example);
      assert.equal(await detectProvisioner(directory), 'native');
      const provisioner = createNativeProvisioner();
      const parsed = await provisioner.parse({ directory, variableValues: [], log: () => undefined, signal });
      assert.equal(parsed.readme, example.markdown);
      assert.ok(
        parsed.resources.some((resource) => resource.agents.length > 0),
        `${example.id} has an agent`,
      );
      const planned = await provisioner.plan({
        directory,
        variableValues: [],
        log: () => undefined,
        signal,
        transition: 'start',
        parameterValues: [],
        workspace: { id: '6f1c2f0e-0000-4000-8000-000000000001', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: 1 },
        accessUrl: 'http://cove.test',
        previousState: null,
      });
      assert.deepEqual(
        planned.resources.map((resource) => resource.name),
        parsed.resources.map((resource) => resource.name),
      );
    });
  }

  it('ships executable hook scripts', async () => {
    const example = findTemplateExample('vm-hooks');
    assert.ok(example);
    const directory = await writeExample(example);
    for (const hook of ['create', 'start', 'stop', 'delete']) {
      assert.equal((await stat(join(directory, 'hooks', `${hook}.sh`))).mode & 0o777, 0o755, hook);
    }
  });

  it('gives the python example its parameters and preset', async () => {
    const example = findTemplateExample('python');
    assert.ok(example);
    const parsed = await createNativeProvisioner().parse({
      directory: await writeExample(example),
      variableValues: [],
      log: () => undefined,
      signal,
    });
    assert.deepEqual(
      parsed.parameters.map((parameter) => [parameter.name, parameter.type, parameter.default_value]),
      [
        ['python', 'string', '3.12'],
        ['cpus', 'number', '2'],
      ],
    );
    assert.deepEqual(parsed.presets, [{ name: 'Small', default: true, parameters: [{ name: 'cpus', value: '1' }] }]);
    const script = parsed.resources[1]?.agents[0]?.scripts[0]?.script ?? '';
    assert.match(script, /^#!\/bin\/sh\n/, 'install.sh is inlined as the script');
  });
});
