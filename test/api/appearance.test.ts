import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const LINKS = JSON.stringify([{ name: 'Help desk', target: 'https://help.example.com', icon: 'chat' }]);

describe("appearance: the user's theme and font, their preferences, the deployment's look, regions", () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;

  before(async () => {
    test = await startTestDaemon({
      flags: { applicationName: 'Flag Name', docsUrl: 'https://docs.example.com', supportLinks: LINKS },
    });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('GET/PUT /users/{user}/appearance keeps the theme and terminal font per user', async () => {
    assert.deepEqual(await member.userAppearance(), { theme_preference: '', terminal_font: '' });
    const saved = await member.updateUserAppearance({ theme_preference: 'light', terminal_font: 'fira-code' });
    assert.deepEqual(saved, { theme_preference: 'light', terminal_font: 'fira-code' });
    assert.deepEqual(await member.userAppearance('me'), saved);
    // The theme is the one the user answer carries; the owner's own settings are untouched.
    assert.equal((await member.user('me')).theme_preference, 'light');
    assert.deepEqual(await owner.userAppearance(), { theme_preference: '', terminal_font: '' });
    // A client that sends the theme alone keeps the font.
    assert.deepEqual(await member.updateUserAppearance({ theme_preference: 'dark' }), {
      theme_preference: 'dark',
      terminal_font: 'fira-code',
    });
    await expectApiError(
      member.updateUserAppearance({ theme_preference: 'dark', terminal_font: 'comic-sans' }),
      400,
      /Unsupported font family/,
    );
    await expectApiError(member.updateUserAppearance({ theme_preference: '' }), 400, /theme_preference/);
  });

  it("a member cannot read or change another user's appearance; an owner can", async () => {
    const ownerId = (await owner.user('me')).id;
    const memberId = (await member.user('me')).id;
    await expectApiError(member.userAppearance(ownerId), 404);
    await expectApiError(member.updateUserAppearance({ theme_preference: 'light' }, ownerId), 404);
    assert.equal((await owner.userAppearance(memberId)).terminal_font, 'fira-code');
  });

  it('GET/PUT /users/{user}/preferences records the dismissed task alert', async () => {
    assert.deepEqual(await member.userPreferences(), { task_notification_alert_dismissed: false });
    assert.deepEqual(await member.updateUserPreferences({ task_notification_alert_dismissed: true }), {
      task_notification_alert_dismissed: true,
    });
    assert.deepEqual(await member.userPreferences(), { task_notification_alert_dismissed: true });
    assert.deepEqual(await owner.userPreferences(), { task_notification_alert_dismissed: false });
  });

  it("GET /appearance starts from the server options; an owner's PUT wins; a member cannot PUT", async () => {
    const initial = await member.appearance();
    assert.deepEqual(initial, {
      application_name: 'Flag Name',
      logo_url: '',
      docs_url: 'https://docs.example.com',
      service_banner: { enabled: false },
      announcement_banners: [],
      support_links: [{ name: 'Help desk', target: 'https://help.example.com', icon: 'chat' }],
    });
    const update = {
      application_name: 'Acme Dev',
      logo_url: 'https://acme.example.com/logo.png',
      service_banner: { enabled: true, message: 'Maintenance at noon', background_color: '#004852' },
      announcement_banners: [{ enabled: true, message: 'Welcome', background_color: '#123456' }],
    };
    assert.deepEqual(await owner.updateAppearance(update), update);
    const after = await member.appearance();
    assert.equal(after.application_name, 'Acme Dev');
    assert.equal(after.logo_url, 'https://acme.example.com/logo.png');
    assert.deepEqual(after.service_banner, update.service_banner);
    assert.deepEqual(after.announcement_banners, update.announcement_banners);
    assert.deepEqual(after.support_links, initial.support_links);
    await expectApiError(member.updateAppearance({ application_name: 'Mine', logo_url: '' }), 403);
    await expectApiError(
      owner.updateAppearance({
        application_name: 'x',
        logo_url: '',
        service_banner: { enabled: true, message: 'm', background_color: 'red' },
      }),
      400,
      /color/,
    );
  });

  it('GET /regions answers the one primary region of the deployment', async () => {
    const { regions } = await member.regions();
    assert.equal(regions.length, 1);
    const [primary] = regions;
    assert.equal(primary?.id, test.daemon.identity.deploymentId);
    assert.equal(primary?.name, 'primary');
    assert.equal(primary?.display_name, 'Default');
    assert.equal(primary?.healthy, true);
    assert.match(primary?.path_app_url ?? '', /^https?:\/\//);
    assert.equal(typeof primary?.wildcard_hostname, 'string');
  });
});
