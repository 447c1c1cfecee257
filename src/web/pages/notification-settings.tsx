// The user's notification preferences: each kind the deployment sends, grouped, with a switch to
// turn it off or on again.
import type { NotificationPreference, NotificationTemplate } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { ACCOUNT_TABS, SectionTabs } from '../components/section-tabs.js';
import { groupKinds, groupHeadingId } from '../notification-groups.js';
import { useSession } from '../session.js';

export function NotificationSettingsPage() {
  const { user } = useSession();
  const kinds = useLoad(() => api<NotificationTemplate[]>('GET', '/notifications/templates/system'), []);
  const preferences = useLoad(
    () =>
      api<NotificationPreference[] | null>('GET', `/users/${encodeURIComponent(user.id)}/notifications/preferences`).then(
        (list) => list ?? [],
      ),
    [user.id],
  );
  const [saved, save] = useAction(async (kind: NotificationTemplate, enabled: boolean) => {
    const answer = await api<NotificationPreference[] | null>('PUT', `/users/${encodeURIComponent(user.id)}/notifications/preferences`, {
      body: { template_disabled_map: { [kind.id]: !enabled } },
    });
    if (answer) preferences.setData(answer);
    else preferences.reload();
    return `${kind.name}: ${enabled ? 'on' : 'off'}.`;
  });
  const header = (
    <>
      <SectionTabs label="Account settings" tabs={ACCOUNT_TABS} />
      <div className="page-header">
        <div>
          <h1>Notifications</h1>
          <p className="muted">Which notifications you receive. Turning one off stops it by every method: e-mail, webhook and the inbox.</p>
        </div>
      </div>
    </>
  );
  if (!kinds.data || !preferences.data)
    return (
      <section className="page">
        {header}
        <Loading error={kinds.error ?? preferences.error} />
      </section>
    );
  const prefs = preferences.data;
  const enabled = (kind: NotificationTemplate) => {
    const preference = prefs.find((item) => item.id === kind.id);
    return preference ? !preference.disabled : kind.enabled_by_default;
  };
  return (
    <section className="page">
      {header}
      <ActionStatus state={saved} pending="Saving…" />
      {groupKinds(kinds.data).map(([group, members]) => (
        <section key={group} className="card" aria-labelledby={groupHeadingId(group)}>
          <h2 id={groupHeadingId(group)}>{group}</h2>
          <ul className="plain-list preference-list">
            {members.map((kind) => (
              <li key={kind.id} className="preference" data-kind={kind.id}>
                <label className="switch">
                  <input
                    type="checkbox"
                    role="switch"
                    checked={enabled(kind)}
                    disabled={saved.state === 'pending'}
                    onChange={(event) => void save(kind, event.target.checked)}
                  />
                  <span>{kind.name}</span>
                </label>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
