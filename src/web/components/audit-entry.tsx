// One entry of the audit log as a table row: who, what (the description with its resource linked),
// when, the answer's status, from where, and the changed fields on demand.
import { useState } from 'react';
import type { AuditDiffField, AuditLog } from '../../sdk/wire/index.js';
import { Link, isDashboardPath } from '../router.js';
import { StatusBadge, Time } from './status.js';

export function AuditEntryRow({ entry }: { entry: AuditLog }) {
  const [open, setOpen] = useState(false);
  const fields = Object.entries(entry.diff);
  const buildReason = entry.additional_fields.build_reason;
  const ok = entry.status_code < 400;
  const diffId = `audit-diff-${entry.id}`;
  return (
    <>
      <tr data-audit-entry={entry.id} data-action={entry.action} data-resource-type={entry.resource_type}>
        <td>
          <Time iso={entry.time} />
        </td>
        <td>
          <span className="resource-head">
            <Avatar user={entry.user} />
            {entry.user?.username ?? 'Unauthenticated user'}
          </span>
        </td>
        <td>
          <Description entry={entry} />
          {buildReason && <div className="field-hint">Reason: {buildReason.replaceAll('_', ' ')}</div>}
          {entry.organization && (
            <div className="field-hint">Organization: {entry.organization.display_name || entry.organization.name}</div>
          )}
        </td>
        <td>
          <StatusBadge status={ok ? 'ok' : 'error'} label={String(entry.status_code)} />
        </td>
        <td>
          <span className="mono">{entry.ip || '—'}</span>
          {entry.user_agent && <div className="field-hint audit-agent">{entry.user_agent}</div>}
        </td>
        <td>
          {fields.length > 0 && (
            <button
              type="button"
              className="button button-quiet"
              aria-expanded={open}
              aria-controls={open ? diffId : undefined}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Hide changes' : `${fields.length} change${fields.length === 1 ? '' : 's'}`}
            </button>
          )}
        </td>
      </tr>
      {open && (
        <tr id={diffId} className="audit-diff-row">
          <td colSpan={6}>
            <table className="table audit-diff" aria-label="Changed fields">
              <thead>
                <tr>
                  <th>Field</th>
                  <th>Old</th>
                  <th>New</th>
                </tr>
              </thead>
              <tbody>
                {fields.map(([name, change]) => (
                  <tr key={name}>
                    <td>
                      <code>{name}</code>
                    </td>
                    <td className="audit-old">{shown(change, 'old')}</td>
                    <td className="audit-new">{shown(change, 'new')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </td>
        </tr>
      )}
    </>
  );
}

/** A value of the diff; a secret one is never sent, so it says so. */
function shown(change: AuditDiffField, side: 'old' | 'new') {
  if (change.secret) return <em className="muted">secret</em>;
  const value = change[side];
  if (value === undefined || value === null || value === '') return <span className="muted">—</span>;
  return <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>;
}

/** The entry's description: `{user}` is the actor, `{target}` the resource, linked where it has a page. */
function Description({ entry }: { entry: AuditLog }) {
  const user = entry.user?.username ?? 'Unauthenticated user';
  const text = entry.description.replace('{user}', user);
  const at = text.indexOf('{target}');
  const target = entry.resource_type === 'git_ssh_key' ? '' : entry.resource_target.trim();
  const link = entry.resource_link;
  const targetNode =
    target === '' ? null : link === '' ? (
      <strong>{target}</strong>
    ) : isDashboardPath(link) ? (
      <Link href={link}>
        <strong>{target}</strong>
      </Link>
    ) : (
      <a href={link}>
        <strong>{target}</strong>
      </a>
    );
  if (at < 0)
    return (
      <span>
        {text} {targetNode}
      </span>
    );
  return (
    <span>
      {text.slice(0, at)}
      {targetNode}
      {text.slice(at + '{target}'.length)}
    </span>
  );
}

/** The user's picture, or their initial when they have none. */
export function Avatar({ user }: { user: { username: string; avatar_url?: string } | null }) {
  if (user?.avatar_url) return <img className="avatar" src={user.avatar_url} alt="" width={24} height={24} loading="lazy" />;
  return (
    <span className="avatar avatar-initial" aria-hidden="true">
      {(user?.username ?? '?').slice(0, 1).toUpperCase()}
    </span>
  );
}
