// How a template is used over the last week: active users per day, the apps and ways in that were
// used, and who used it for how long.
import type { Template, TemplateInsightsResponse, UserActivityInsightsResponse } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { BarChart } from '../components/template-bar-chart.js';
import { TemplateFrame, TemplateLoading, useTemplate } from '../components/template-frame.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Days in the report, today (up to this hour) included. */
const DAYS = 7;

export function TemplateInsightsPage({ name }: { name: string }) {
  const { data, error } = useTemplate(name);
  if (!data) return <TemplateLoading name={name} error={error} />;
  return (
    <TemplateFrame template={data}>
      <Insights template={data} />
    </TemplateFrame>
  );
}

/**
 * The report's range in UTC: from midnight six days ago to the end of this hour, as the API takes
 * it (a start at midnight; an end at midnight or a whole hour of today, at most the next one).
 */
function lastWeek(now = Date.now()): { start_time: string; end_time: string } {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  const start = Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
  const text = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  return { start_time: text(start), end_time: text(end) };
}

/** A day as a short label: "Nov 24". */
function dayLabel(iso: string): string {
  return new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Seconds as people read them: "2h 5m", "3m", "0m". */
function usage(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours}h ${minutes % 60}m` : `${minutes}m`;
}

function Insights({ template }: { template: Template }) {
  const range = lastWeek();
  const query = { template_ids: template.id, ...range };
  const report = useLoad(
    () => api<TemplateInsightsResponse>('GET', '/insights/templates', { query: { ...query, interval: 'day' } }),
    [template.id, range.end_time],
  );
  const activity = useLoad(
    () => api<UserActivityInsightsResponse>('GET', '/insights/user-activity', { query }),
    [template.id, range.end_time],
  );
  return (
    <div className="template-insights">
      <p className="muted">
        From {dayLabel(range.start_time)} to now (UTC), the last {DAYS} days.
      </p>
      <section className="card" aria-labelledby="active-users-title">
        <h2 id="active-users-title">Active users per day</h2>
        {!report.data ? (
          <Loading error={report.error} />
        ) : (
          <>
            <p>
              <strong>{report.data.report.active_users}</strong> {report.data.report.active_users === 1 ? 'user' : 'users'} in the period.
            </p>
            <BarChart
              caption="Active users per day"
              unit="users"
              bars={report.data.interval_reports.map((interval) => ({
                label: dayLabel(interval.start_time),
                value: interval.active_users,
              }))}
            />
          </>
        )}
      </section>
      <div className="workspace-grid">
        <section className="card" aria-labelledby="app-usage-title">
          <h2 id="app-usage-title">Apps and ways in</h2>
          {!report.data ? (
            <Loading error={report.error} />
          ) : (
            <div className="table-scroll">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">App</th>
                    <th scope="col">Time used</th>
                    <th scope="col">Times opened</th>
                  </tr>
                </thead>
                <tbody>
                  {[...report.data.report.apps_usage]
                    .sort((a, b) => b.seconds - a.seconds)
                    .map((app) => (
                      <tr key={`${app.type}:${app.slug}`} data-app={app.slug}>
                        <th scope="row">{app.display_name || app.slug}</th>
                        <td>{usage(app.seconds)}</td>
                        <td>{app.times_used}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <section className="card" aria-labelledby="user-activity-title">
          <h2 id="user-activity-title">Activity per user</h2>
          {!activity.data ? (
            <Loading error={activity.error} />
          ) : activity.data.report.users.length === 0 ? (
            <p className="muted">Nobody used a workspace of this template in the period.</p>
          ) : (
            <ul className="plain-list stats">
              {activity.data.report.users.map((user) => (
                <li key={user.user_id} data-user={user.username}>
                  <span className="stats-name">{user.username}</span>
                  <span>{usage(user.seconds)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
