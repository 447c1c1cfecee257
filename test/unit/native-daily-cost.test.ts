import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import type { BuildInput, Transition } from '../../src/provisioner/provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-native-cost-'));
after(() => rm(scratch, { recursive: true, force: true }));

/** A disk that costs 1 credit a day and a machine that costs 3: what quotas count. */
const TEMPLATE = [
  'resources:',
  '  - name: home',
  '    type: directory',
  '    path: /srv/cove/${{ workspace.owner }}/${{ workspace.name }}',
  '    daily_cost: 1',
  '  - name: dev',
  '    type: process',
  '    daily_cost: 3',
  '    agents:',
  '      - name: main',
].join('\n');

function buildInput(directory: string, transition: Transition): BuildInput {
  return {
    directory,
    variableValues: [],
    log: () => undefined,
    signal: new AbortController().signal,
    transition,
    parameterValues: [],
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'user-1', start_count: 1 },
    accessUrl: 'http://cove.test',
    previousState: null,
  };
}

describe('native templates: daily_cost', () => {
  it('plans each resource with its declared cost; a stop keeps only what stays, with its cost', async () => {
    await writeFile(join(scratch, 'template.yaml'), TEMPLATE);
    const provisioner = createNativeProvisioner();
    const start = await provisioner.plan(buildInput(scratch, 'start'));
    assert.deepEqual(
      start.resources.map((resource) => [resource.name, resource.daily_cost]),
      [
        ['home', 1],
        ['dev', 3],
      ],
    );
    const stop = await provisioner.plan(buildInput(scratch, 'stop'));
    assert.deepEqual(
      stop.resources.map((resource) => [resource.name, resource.daily_cost]),
      [['home', 1]],
    );
  });

  it('refuses a cost that is not a whole number of credits at least zero', async () => {
    await writeFile(join(scratch, 'template.yaml'), TEMPLATE.replace('daily_cost: 3', 'daily_cost: -2'));
    await assert.rejects(createNativeProvisioner().plan(buildInput(scratch, 'start')), /daily_cost/);
  });
});
