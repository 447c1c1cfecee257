// The audit log, for owners and auditors: who did what and when, newest first, filtered with the
// API's search syntax (menus for resource type, action and dates edit the same search) and paged.
import type { AuditAction, AuditLogResponse, AuditResourceType } from '../../sdk/wire/index.js';
import { AuditEntryRow } from '../components/audit-entry.js';
import { Loading } from '../components/feedback.js';
import { Pager } from '../components/pager.js';
import { Link } from '../router.js';
import { termValue } from '../search-terms.js';
import { LOG_PAGE_SIZE, useSearchedLog } from '../searched-log.js';

const RESOURCE_TYPES = [
  'api_key',
  'custom_role',
  'git_ssh_key',
  'group',
  'health_settings',
  'license',
  'notification_template',
  'notifications_settings',
  'oauth2_provider_app',
  'organization',
  'organization_member',
  'template',
  'template_version',
  'user',
  'workspace',
  'workspace_agent',
  'workspace_app',
  'workspace_build',
  'workspace_proxy',
] as const satisfies readonly AuditResourceType[];

const ACTIONS = [
  'create',
  'write',
  'delete',
  'start',
  'stop',
  'login',
  'logout',
  'register',
  'request_password_reset',
  'connect',
  'disconnect',
  'open',
  'close',
] as const satisfies readonly AuditAction[];

export function AuditPage() {
  const { query, offset, draft, setDraft, data, error, setTerm, submit, goToOffset } = useSearchedLog<AuditLogResponse>('/audit', '/audit');
  return (
    <section className="page">
      <div className="page-header">
        <div>
          <h1>Audit log</h1>
          <p className="muted">
            Every change made through the API, and every sign-in and sign-out. Sessions into workspaces are in the{' '}
            <Link href="/connectionlog">connection log</Link>.
          </p>
        </div>
      </div>
      <form className="filter" role="search" onSubmit={submit} aria-label="Filter the audit log">
        <label className="field field-inline">
          <span className="visually-hidden">Search the audit log</span>
          <input
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="resource_type:template action:delete username:alice"
            aria-describedby="audit-filter-hint"
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        <label className="field filter-menu">
          <span className="field-label">Resource type</span>
          <select value={termValue(query, 'resource_type')} onChange={(event) => setTerm('resource_type', event.target.value)}>
            <option value="">Any</option>
            {RESOURCE_TYPES.map((type) => (
              <option key={type} value={type}>
                {type.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label className="field filter-menu">
          <span className="field-label">Action</span>
          <select value={termValue(query, 'action')} onChange={(event) => setTerm('action', event.target.value)}>
            <option value="">Any</option>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label className="field filter-menu">
          <span className="field-label">From</span>
          <input type="date" value={termValue(query, 'date_from')} onChange={(event) => setTerm('date_from', event.target.value)} />
        </label>
        <label className="field filter-menu">
          <span className="field-label">To</span>
          <input type="date" value={termValue(query, 'date_to')} onChange={(event) => setTerm('date_to', event.target.value)} />
        </label>
        <p id="audit-filter-hint" className="field-hint">
          Search terms: <code>resource_type:</code>, <code>resource_id:</code>, <code>action:</code>, <code>username:</code>,{' '}
          <code>email:</code>, <code>date_from:2026-01-31</code>, <code>date_to:</code>, <code>build_reason:</code>.
        </p>
      </form>
      {error !== undefined || !data ? (
        // A refused search shows the API's reason, not the entries of the search before it.
        <Loading error={error} />
      ) : (
        <>
          {data.audit_logs.length === 0 ? (
            <div className="empty">
              <p>No audit entries match{query ? ` “${query}”` : ''}.</p>
            </div>
          ) : (
            <div className="table-scroll">
              <table className="table" aria-label="Audit log">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>User</th>
                    <th>Description</th>
                    <th>Status</th>
                    <th>IP</th>
                    <th>
                      <span className="visually-hidden">Changes</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.audit_logs.map((entry) => (
                    <AuditEntryRow key={entry.id} entry={entry} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            label="Audit log pages"
            offset={offset}
            limit={LOG_PAGE_SIZE}
            shown={data.audit_logs.length}
            count={data.count}
            onOffset={goToOffset}
          />
        </>
      )}
    </section>
  );
}
