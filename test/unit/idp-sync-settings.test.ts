import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OptionError, resolveOptions } from '../../src/domain/deployment-options.js';
import { claimStrings, groupOutcomes, idpSyncSettings, roleOutcomes, syncedGroupNames } from '../../src/domain/idp-sync.js';
import { HttpProblem } from '../../src/lib/errors.js';

describe('group and role sync settings and claims', () => {
  it('reads the mappings from flags, the environment and YAML mappings alike', () => {
    const fromYaml = resolveOptions({
      yaml: { oauth2: { oidc_group_field: 'groups', oidc_group_mapping: { 'eng-all': 'engineering', ops: ['operators', 'oncall'] } } },
    }).values;
    const fromEnv = resolveOptions({
      env: { COVE_OIDC_GROUP_FIELD: 'groups', COVE_OIDC_GROUP_MAPPING: '{"eng-all":"engineering","ops":["operators","oncall"]}' },
    }).values;
    for (const values of [fromYaml, fromEnv]) {
      const settings = idpSyncSettings(values);
      const outcome = groupOutcomes(settings, { groups: ['eng-all', 'ops', 'other'] });
      assert.ok(outcome && 'outcomes' in outcome);
      assert.deepEqual(syncedGroupNames(outcome.outcomes), ['engineering', 'operators', 'oncall', 'other']);
    }
  });

  it('refuses at start a mapping that is not a JSON object of names, a bad regex, and allowed groups without a field', () => {
    assert.throws(
      () => resolveOptions({ flags: { oidcGroupMapping: '{not json' } }),
      (error: unknown) => {
        assert.ok(error instanceof OptionError);
        assert.match(error.message, /--oidc-group-mapping: not JSON/);
        return true;
      },
    );
    assert.throws(() => resolveOptions({ flags: { oidcUserRoleMapping: '{"ops": 3}' } }), /--oidc-user-role-mapping: the value of "ops"/);
    assert.throws(() => resolveOptions({ flags: { oidcGroupRegexFilter: '(' } }), /--oidc-group-regex-filter/);
    assert.throws(() => resolveOptions({ flags: { oidcAllowedGroups: 'staff' } }), /--oidc-allowed-groups needs --oidc-group-field/);
  });

  it('reads a claim as an array of strings or one string, and refuses a comma-separated string', () => {
    assert.deepEqual(claimStrings(['a', 'b']), ['a', 'b']);
    assert.deepEqual(claimStrings('solo'), ['solo']);
    assert.deepEqual(claimStrings(undefined), []);
    assert.throws(() => claimStrings('a,b'), /comma-separated/);
    assert.throws(() => claimStrings(['a', 1]), /element 1 of the claim is a number/);
  });

  it('leaves memberships alone when the group claim cannot be read, and refuses a sign-in whose role claim cannot', () => {
    const settings = idpSyncSettings(resolveOptions({ flags: { oidcGroupField: 'groups', oidcUserRoleField: 'roles' } }).values);
    assert.deepEqual(groupOutcomes(settings, { groups: { nested: true } }), {
      error: 'the "groups" claim: the claim is an object, not an array of strings',
    });
    assert.throws(
      () => roleOutcomes(settings, { roles: 7 }),
      (error: unknown) => error instanceof HttpProblem && error.status === 400,
    );
    assert.deepEqual(
      roleOutcomes(settings, { roles: ['auditor', 'member', 'wizard'] })?.map((outcome) => `${outcome.role}:${outcome.assignable}`),
      ['auditor:true', 'member:false', 'wizard:false'],
    );
  });
});
