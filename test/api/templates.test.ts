import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { ProvisionerJobLog, TemplateVersion } from '../../src/sdk/wire/index.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Follows a version's logs until its job ends and returns the version as it ended. */
async function importVersion(
  client: CoveClient,
  version: TemplateVersion,
): Promise<{ version: TemplateVersion; logs: ProvisionerJobLog[] }> {
  const logs: ProvisionerJobLog[] = [];
  await client.followTemplateVersionLogs(version.id, (log) => logs.push(log));
  return { version: await client.templateVersion(version.id), logs };
}

async function echoFile(client: CoveClient, echo: unknown): Promise<string> {
  return (await client.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo) }))).id;
}

describe('templates and template versions', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('imports a version through a built-in daemon, with stage logs and what it found', async () => {
    const fileId = await echoFile(owner, {
      parse: {
        readme: '# Echo',
        variables: [{ name: 'region', default_value: 'eu' }],
        parameters: [{ name: 'size', type: 'number', default_value: '2', validation_min: 1 }],
        presets: [{ name: 'Small', default: true, parameters: [{ name: 'size', value: '1' }] }],
      },
      plan: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] },
    });
    const created = await owner.createTemplateVersion('default', { file_id: fileId, message: 'first' });
    assert.equal(created.job.status, 'pending');
    assert.match(created.name, /^[a-z]+_[a-z]+\d$/);
    const { version, logs } = await importVersion(owner, created);
    assert.equal(version.job.status, 'succeeded', JSON.stringify(version.job));
    assert.equal(version.readme, '# Echo');
    const stages = [...new Set(logs.map((log) => log.stage))];
    assert.deepEqual(stages, [
      'Setting up',
      'Parsing template parameters',
      'Detecting persistent resources',
      'Detecting ephemeral resources',
      'Cleaning Up',
    ]);
    assert.ok(
      logs.every((log, index) => index === 0 || log.id > (logs[index - 1]?.id ?? 0)),
      'logs arrive in order',
    );
    assert.deepEqual(
      (await owner.templateVersionLogs(version.id)).map((log) => log.id),
      logs.map((log) => log.id),
    );

    const resources = await owner.templateVersionResources(version.id);
    assert.deepEqual(
      resources.map((r) => [r.name, r.workspace_transition, r.agents.map((a) => a.name)]),
      [
        ['box', 'start', ['main']],
        ['box', 'stop', ['main']],
      ],
    );
    const parameters = await owner.templateVersionRichParameters(version.id);
    assert.deepEqual(
      parameters.map((p) => [p.name, p.type, p.default_value, p.validation_min]),
      [['size', 'number', '2', 1]],
    );
    assert.deepEqual(
      (await owner.templateVersionVariables(version.id)).map((v) => [v.name, v.value]),
      [['region', 'eu']],
    );
    assert.deepEqual(
      (await owner.templateVersionPresets(version.id)).map((p) => p.Name),
      ['Small'],
    );

    const template = await owner.createTemplate('default', { name: 'echo-box', template_version_id: version.id, display_name: 'Echo box' });
    assert.equal(template.active_version_id, version.id);
    assert.equal(template.activity_bump_ms, 3_600_000);
    assert.equal(template.provisioner, 'echo');
    assert.deepEqual(template.autostart_requirement.days_of_week.length, 7);
    assert.equal((await owner.templateByName('default', 'echo-box')).id, template.id);
    assert.deepEqual(
      (await member.templates()).map((t) => t.name),
      ['echo-box'],
      'organization members can use templates',
    );
    const versions = await owner.templateVersions(template.id);
    assert.deepEqual(
      versions.map((v) => [v.id, v.job.status, v.template_id]),
      [[version.id, 'succeeded', template.id]],
    );
    await expectApiError(owner.createTemplate('default', { name: 'echo-box', template_version_id: version.id }), 409);
  });

  it('plans a workspace in a dry run, and evaluates parameters with diagnostics', async () => {
    const fileId = await echoFile(owner, {
      parse: {
        parameters: [
          { name: 'size', type: 'number', default_value: '2', validation_min: 1, validation_max: 8 },
          { name: 'name', type: 'string', required: true },
        ],
      },
      plan: { resources: [{ name: 'vm', type: 'echo', agents: [{ name: 'dev' }] }] },
    });
    const { version } = await importVersion(owner, await owner.createTemplateVersion('default', { file_id: fileId }));
    assert.equal(version.job.status, 'succeeded', version.job.error ?? undefined);
    await owner.createTemplate('default', { name: 'dry', template_version_id: version.id });
    const job = await member.createDryRun(version.id, { workspace_name: 'trial', rich_parameter_values: [{ name: 'name', value: 'x' }] });
    assert.equal(job.type, 'template_version_dry_run');
    const deadline = Date.now() + 10_000;
    let status = job.status;
    while (status !== 'succeeded' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await member.dryRun(version.id, job.id)).status;
    }
    assert.equal(status, 'succeeded');
    assert.deepEqual(
      (await member.dryRunResources(version.id, job.id)).map((r) => [r.name, r.agents.map((a) => a.name)]),
      [['vm', ['dev']]],
    );
    assert.ok((await member.dryRunLogs(version.id, job.id)).some((log) => log.stage === 'Planning infrastructure'));
    await expectApiError(owner.dryRun(version.id, version.job.id), 404);
    await expectApiError(owner.dryRun(version.id, 'nope'), 400);

    const evaluated = await member.evaluateDynamicParameters(version.id, { id: 7, inputs: { size: '12' } });
    assert.equal(evaluated.id, 7);
    const byName = new Map(evaluated.parameters.map((p) => [p.name, p]));
    assert.equal(byName.get('size')?.value.value, '12');
    assert.match(byName.get('size')?.diagnostics[0]?.detail ?? '', /more than the maximum 8/);
    assert.equal(byName.get('name')?.diagnostics[0]?.extra.code, 'required');
    const fine = await member.evaluateDynamicParameters(version.id, { id: 8, inputs: { size: '3', name: 'ok' } });
    assert.ok(fine.parameters.every((p) => p.diagnostics.length === 0));
  });

  it('fails an import that misses a required variable with REQUIRED_TEMPLATE_VARIABLES, naming it', async () => {
    const fileId = await echoFile(owner, {
      parse: {
        variables: [
          { name: 'region', required: true },
          { name: 'zone', default_value: 'a' },
        ],
      },
    });
    const { version } = await importVersion(owner, await owner.createTemplateVersion('default', { file_id: fileId }));
    assert.equal(version.job.status, 'failed');
    assert.equal(version.job.error_code, 'REQUIRED_TEMPLATE_VARIABLES');
    assert.match(version.job.error ?? '', /region/);
    const given = await importVersion(
      owner,
      await owner.createTemplateVersion('default', { file_id: fileId, user_variable_values: [{ name: 'region', value: 'us' }] }),
    );
    assert.equal(given.version.job.status, 'succeeded');
  });

  it('imports the built-in native examples by id', async () => {
    const { version, logs } = await importVersion(owner, await owner.createTemplateVersion('default', { example_id: 'local-shell' }));
    assert.equal(version.job.status, 'succeeded', `${version.job.error}\n${logs.map((l) => l.output).join('\n')}`);
    const resources = await owner.templateVersionResources(version.id);
    assert.ok(
      resources.some((r) => r.agents.length > 0),
      'the local shell has an agent',
    );
    await expectApiError(owner.createTemplateVersion('default', { example_id: 'nope' }), 400);
    assert.ok((await owner.templateExamples()).some((e) => e.id === 'local-shell'));
  });

  it('imports a native template whose required parameter has no default, and reports invalid files by line', async () => {
    const yaml =
      'parameters:\n  - name: project\n    type: string\nresources:\n  - name: home\n    type: directory\n    path: /tmp/cove-test/${{ parameters.project }}\n';
    const good = (await owner.uploadFile(await createTar({ 'template.yaml': yaml }))).id;
    const { version } = await importVersion(owner, await owner.createTemplateVersion('default', { file_id: good }));
    assert.equal(version.job.status, 'succeeded', version.job.error ?? undefined);
    assert.deepEqual(
      (await owner.templateVersionRichParameters(version.id)).map((p) => [p.name, p.required]),
      [['project', true]],
    );
    const bad = (await owner.uploadFile(await createTar({ 'template.yaml': 'parameters:\n  - name: x\n    type: colour\n' }))).id;
    const failed = await importVersion(owner, await owner.createTemplateVersion('default', { file_id: bad }));
    assert.equal(failed.version.job.status, 'failed');
    assert.match(failed.version.job.error ?? '', /template\.yaml:3: parameters\[0\]\.type/);
  });

  it("takes a template's description and icon from its file when made, and from a version made active", async () => {
    const nativeVersion = async (yaml: string) => {
      const file = (await owner.uploadFile(await createTar({ 'template.yaml': yaml }))).id;
      const { version } = await importVersion(owner, await owner.createTemplateVersion('default', { file_id: file }));
      assert.equal(version.job.status, 'succeeded', version.job.error ?? undefined);
      return version;
    };
    const first = await nativeVersion('description: Rust and a database\nicon: /icon/rust.svg\n');
    const made = await owner.createTemplate('default', { name: 'declared', template_version_id: first.id });
    assert.deepEqual([made.description, made.icon], ['Rust and a database', '/icon/rust.svg']);
    // What the request says wins over the file when the template is made.
    const asked = await owner.createTemplate('default', {
      name: 'declared-asked',
      template_version_id: (await nativeVersion('description: From the file\n')).id,
      description: 'From the request',
    });
    assert.deepEqual([asked.description, asked.icon], ['From the request', '']);

    // A new version declaring a new icon, made active, brings it; the description it leaves out stays.
    const second = await owner.createTemplateVersion('default', {
      file_id: (await owner.uploadFile(await createTar({ 'template.yaml': 'icon: /icon/go.svg\n' }))).id,
      template_id: made.id,
    });
    await importVersion(owner, second);
    await owner.promoteTemplateVersion(made.id, second.id);
    const promoted = await owner.template(made.id);
    assert.deepEqual([promoted.description, promoted.icon], ['Rust and a database', '/icon/go.svg']);
  });

  it('promotes, archives and finds versions by name; refuses bad input', async () => {
    const first = await importVersion(
      owner,
      await owner.createTemplateVersion('default', { file_id: await echoFile(owner, {}), name: 'v1' }),
    );
    const template = await owner.createTemplate('default', { name: 'promoted', template_version_id: first.version.id });
    const second = await importVersion(
      owner,
      await owner.createTemplateVersion('default', {
        file_id: await echoFile(owner, { parse: { readme: 'two' } }),
        name: 'v2',
        template_id: template.id,
      }),
    );
    await expectApiError(
      owner.createTemplateVersion('default', { file_id: await echoFile(owner, {}), name: 'v2', template_id: template.id }),
      409,
    );
    await owner.promoteTemplateVersion(template.id, second.version.id);
    assert.equal((await owner.template(template.id)).active_version_id, second.version.id);
    assert.equal((await owner.templateVersionByName(template.id, 'v1')).id, first.version.id);
    const failed = await importVersion(
      owner,
      await owner.createTemplateVersion('default', {
        file_id: await echoFile(owner, { parse: { error: 'broken' } }),
        template_id: template.id,
      }),
    );
    assert.equal(failed.version.job.status, 'failed');
    assert.equal(failed.version.job.error, 'broken');
    await expectApiError(owner.promoteTemplateVersion(template.id, failed.version.id), 403);
    const archived = await owner.archiveTemplateVersions(template.id);
    assert.deepEqual(archived.archived_ids, [failed.version.id]);
    assert.equal((await owner.templateVersions(template.id)).length, 2);
    assert.equal((await owner.templateVersions(template.id, { include_archived: true })).length, 3);
    await expectApiError(owner.createTemplateVersion('default', {}), 400);
    await expectApiError(owner.createTemplateVersion('default', { file_id: await echoFile(owner, {}), example_id: 'local-shell' }), 400);
    await expectApiError(member.createTemplateVersion('default', { file_id: await echoFile(member, {}) }), 403);
  });

  it('keeps scheduling fields, answers 304 for no change, hides deprecated templates unless asked', async () => {
    const { version } = await importVersion(
      owner,
      await owner.createTemplateVersion('default', { file_id: await echoFile(owner, { parse: { readme: 'sched' } }) }),
    );
    const template = await owner.createTemplate('default', {
      name: 'scheduled',
      template_version_id: version.id,
      default_ttl_ms: 8 * 3_600_000,
      autostop_requirement: { days_of_week: ['saturday', 'sunday'], weeks: 2 },
      failure_ttl_ms: 120_000,
    });
    assert.deepEqual(template.autostop_requirement, { days_of_week: ['saturday', 'sunday'], weeks: 2 });
    assert.equal(template.failure_ttl_ms, 120_000);
    assert.equal(await owner.updateTemplate(template.id, { default_ttl_ms: 8 * 3_600_000 }), undefined);
    const bad = await expectApiError(
      owner.updateTemplate(template.id, { failure_ttl_ms: 5, autostop_requirement: { days_of_week: ['funday'] } }),
      400,
    );
    assert.deepEqual(
      bad.body.validations?.map((v) => v.field),
      ['failure_ttl_ms', 'autostop_requirement.days_of_week'],
    );
    const deprecated = await owner.updateTemplate(template.id, { deprecation_message: 'use another one' });
    assert.equal(deprecated?.deprecated, true);
    assert.ok(!(await owner.templates()).some((t) => t.name === 'scheduled'));
    assert.ok((await owner.templates('deprecated:true')).some((t) => t.name === 'scheduled'));
    await expectApiError(owner.templates('bogus:1'), 400);
    await expectApiError(member.deleteTemplate(template.id), 403);
    assert.equal((await owner.deleteTemplate(template.id)).message, 'Template has been deleted!');
    await expectApiError(owner.template(template.id), 404);
  });
});
