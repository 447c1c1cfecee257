// For the deployment's owners: how notifications are sent. The methods it can send by and its
// default, the method of each kind, pausing and resuming the sending, and a test notification.
import type { NotificationMethodsResponse, NotificationsSettings, NotificationTemplate } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { StatusBadge } from '../components/status.js';
import { groupHeadingId, groupKinds } from '../notification-groups.js';
import { isOwner, useSession } from '../session.js';

/** What each method is called on the page. */
const METHOD_NAMES: Readonly<Record<string, string>> = { smtp: 'E-mail', webhook: 'Webhook', inbox: 'Inbox' };

function methodName(method: string): string {
  return METHOD_NAMES[method] ?? method;
}

export function DeploymentNotificationsPage() {
  const { user } = useSession();
  if (!isOwner(user)) {
    return (
      <section className="page">
        <h1>Notifications</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <h1>Notifications</h1>
      <Sending />
      <Kinds />
    </section>
  );
}

/** Whether sending runs, by which methods, and a test to check them. */
function Sending() {
  const settings = useLoad(() => api<NotificationsSettings>('GET', '/notifications/settings'), []);
  const methods = useLoad(() => api<NotificationMethodsResponse>('GET', '/notifications/dispatch-methods'), []);
  const [toggled, toggle] = useAction(async (paused: boolean) => {
    settings.setData(await api<NotificationsSettings>('PUT', '/notifications/settings', { body: { notifier_paused: paused } }));
    return paused ? 'Paused: messages wait in the queue until sending resumes.' : 'Resumed.';
  });
  const [tested, test] = useAction(async () => {
    await api('POST', '/notifications/test');
    return 'Sent a test notification to you by every configured method.';
  });
  const paused = settings.data?.notifier_paused;
  return (
    <section className="card" aria-labelledby="sending-title">
      <div className="card-header">
        <h2 id="sending-title">Sending</h2>
        {paused !== undefined && <StatusBadge status={paused ? 'disabled' : 'active'} label={paused ? 'paused' : 'sending'} />}
      </div>
      {!methods.data ? (
        <Loading error={methods.error} />
      ) : (
        <dl className="facts">
          <dt>Methods besides the inbox</dt>
          <dd data-fact="available">{methods.data.available.map(methodName).join(', ') || 'none'}</dd>
          <dt>Default method</dt>
          <dd data-fact="default">{methods.data.default ? methodName(methods.data.default) : 'none'}</dd>
        </dl>
      )}
      {settings.error !== undefined && <Loading error={settings.error} />}
      <div className="inline-actions">
        {paused !== undefined && (
          <button type="button" className="button" disabled={toggled.state === 'pending'} onClick={() => void toggle(!paused)}>
            {paused ? 'Resume sending' : 'Pause sending'}
          </button>
        )}
        <ActionStatus state={toggled} />
        <button type="button" className="button" disabled={tested.state === 'pending'} onClick={() => void test()}>
          Send test notification
        </button>
        <ActionStatus state={tested} pending="Sending…" />
      </div>
    </section>
  );
}

/** Each kind with the method it goes by. */
function Kinds() {
  const kinds = useLoad(() => api<NotificationTemplate[]>('GET', '/notifications/templates/system'), []);
  const methods = useLoad(() => api<NotificationMethodsResponse>('GET', '/notifications/dispatch-methods'), []);
  const [changed, change] = useAction(async (kind: NotificationTemplate, method: string) => {
    await api('PUT', `/notifications/templates/${encodeURIComponent(kind.id)}/method`, { body: { method } });
    kinds.reload();
    return `${kind.name}: ${method ? methodName(method) : 'the default method'}.`;
  });
  if (!kinds.data || !methods.data) return <Loading error={kinds.error ?? methods.error} />;
  const available = methods.data.available;
  const fallback = methods.data.default;
  return (
    <section className="card" aria-labelledby="kinds-title">
      <h2 id="kinds-title">Kinds of notification</h2>
      <ActionStatus state={changed} pending="Saving…" />
      {groupKinds(kinds.data).map(([group, members]) => (
        <div key={group} className="form-section">
          <h3 id={groupHeadingId(group)}>{group}</h3>
          <table className="table" aria-labelledby={groupHeadingId(group)}>
            <thead>
              <tr>
                <th>Kind</th>
                <th>Method</th>
              </tr>
            </thead>
            <tbody>
              {members.map((kind) => (
                <tr key={kind.id} data-kind={kind.id}>
                  <td>
                    {kind.name}
                    {!kind.enabled_by_default && <div className="field-hint">Off until a user turns it on.</div>}
                  </td>
                  <td>
                    <select
                      aria-label={`Method of ${kind.name}`}
                      value={kind.method}
                      disabled={changed.state === 'pending'}
                      onChange={(event) => void change(kind, event.target.value)}
                    >
                      <option value="">Default{fallback ? ` (${methodName(fallback)})` : ''}</option>
                      {[...new Set([...available, ...(kind.method ? [kind.method] : [])])].map((method) => (
                        <option key={method} value={method}>
                          {methodName(method)}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}
