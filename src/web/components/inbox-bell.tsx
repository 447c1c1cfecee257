// The header's inbox: a bell with the count of unread notifications, kept live by the inbox's
// WebSocket, and a dropdown that lists them with their links, to mark one or all read.
import { useCallback, useEffect, useState } from 'react';
import type { InboxNotification, ListInboxNotificationsResponse, UpdateInboxNotificationReadStatusResponse } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { watchInbox } from '../inbox-watch.js';
import { useDismissedMenu } from './dismissed-menu.js';
import { Link, isDashboardPath } from '../router.js';
import { ActionStatus, ErrorMessage, useAction } from './feedback.js';
import { Time } from './status.js';

export function InboxBell() {
  const [notifications, setNotifications] = useState<InboxNotification[]>([]);
  const [unread, setUnread] = useState(0);
  const [error, setError] = useState<unknown>();
  const menu = useDismissedMenu();
  const [open, setOpen] = useState(false);

  const load = useCallback(() => {
    api<ListInboxNotificationsResponse>('GET', '/notifications/inbox').then(
      (answer) => {
        setError(undefined);
        setNotifications(answer.notifications);
        setUnread(answer.unread_count);
      },
      (failure: unknown) => setError(failure),
    );
  }, []);

  useEffect(() => {
    load();
    return watchInbox((message) => {
      setNotifications((list) => [message.notification, ...list.filter((item) => item.id !== message.notification.id)]);
      setUnread(message.unread_count);
    }, load);
  }, [load]);

  const [markedOne, markOne] = useAction(async (id: string) => {
    const answer = await api<UpdateInboxNotificationReadStatusResponse>(
      'PUT',
      `/notifications/inbox/${encodeURIComponent(id)}/read-status`,
      {
        body: { is_read: true },
      },
    );
    setNotifications((list) => list.map((item) => (item.id === id ? answer.notification : item)));
    setUnread(answer.unread_count);
  });
  const [markedAll, markAll] = useAction(async () => {
    await api('PUT', '/notifications/inbox/mark-all-as-read');
    const now = new Date().toISOString();
    setNotifications((list) => list.map((item) => (item.read_at ? item : { ...item, read_at: now })));
    setUnread(0);
    return 'All read.';
  });

  const label = unread === 0 ? 'Notifications, none unread' : `Notifications, ${unread} unread`;
  return (
    <details className="inbox" ref={menu} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="button button-quiet inbox-bell" aria-label={label} title={label}>
        <BellIcon />
        {unread > 0 && (
          <span className="inbox-count" data-unread={unread} aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </summary>
      {/* Drawn only while open: the closed panel's names ("Mark … read") are no one's to find. */}
      {open && (
        <div className="inbox-panel" role="region" aria-label="Inbox">
          <div className="inbox-head">
            <strong>Inbox</strong>
            <button
              type="button"
              className="button button-quiet"
              disabled={unread === 0 || markedAll.state === 'pending'}
              onClick={() => void markAll()}
            >
              Mark all read
            </button>
          </div>
          {error !== undefined && <ErrorMessage error={error} />}
          <ActionStatus state={markedOne.state === 'error' ? markedOne : markedAll.state === 'error' ? markedAll : { state: 'idle' }} />
          {notifications.length === 0 ? (
            <p className="muted inbox-empty">No notifications.</p>
          ) : (
            <ul
              className="inbox-list"
              aria-label="Notifications"
              onClick={(event) => {
                // Following a notification's link closes the dropdown.
                if ((event.target as Element).closest('a') && menu.current) menu.current.open = false;
              }}
            >
              {notifications.map((item) => (
                <li key={item.id} className={item.read_at ? 'inbox-item' : 'inbox-item inbox-unread'} data-notification={item.id}>
                  <div className="inbox-item-head">
                    <strong>{item.title}</strong>
                    <Time iso={item.created_at} />
                  </div>
                  {item.content && <p className="inbox-content">{item.content}</p>}
                  <div className="inline-actions">
                    {item.actions.map((action) => (
                      <ActionLink key={action.label + action.url} label={action.label} url={action.url} />
                    ))}
                    {!item.read_at && (
                      <button
                        type="button"
                        className="button button-quiet"
                        onClick={() => void markOne(item.id)}
                        aria-label={`Mark “${item.title}” read`}
                      >
                        Mark read
                      </button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </details>
  );
}

/** A notification's link: a page of this dashboard opens in place, anything else as a plain link. */
function ActionLink({ label, url }: { label: string; url: string }) {
  let local: string | undefined;
  try {
    const target = new URL(url, location.origin);
    // The server renders these from its own templates; still, only web links are followed.
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
    if (target.origin === location.origin && isDashboardPath(target.pathname + target.search)) local = target.pathname + target.search;
  } catch {
    return null;
  }
  if (local) {
    return (
      <Link className="button" href={local}>
        {label}
      </Link>
    );
  }
  return (
    <a className="button" href={url} rel="noreferrer">
      {label}
    </a>
  );
}

function BellIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
