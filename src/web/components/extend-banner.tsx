// The banner the autostop warning's link opens (`/@owner/workspace?extend=1h`): it says when the
// workspace stops and offers to extend it. Only the button extends; opening the link changes nothing.
import type { Workspace } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { navigate, useLocation } from '../router.js';
import { ActionStatus, useAction } from './feedback.js';

/** "1h", "2h", "30m" as hours; anything else is one hour, the warning's offer. */
function requestedHours(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([hm])$/.exec(value.trim());
  if (!match) return 1;
  const amount = Number(match[1]);
  const hours = match[2] === 'm' ? amount / 60 : amount;
  return hours > 0 && hours <= 24 ? hours : 1;
}

function hoursLabel(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} minutes`;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

/** A time of day, HH:MM in the browser's zone. */
function clock(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
}

export function ExtendBanner({ workspace }: { workspace: Workspace }) {
  const { pathname, search } = useLocation();
  const asked = search.get('extend');
  const deadline = workspace.latest_build.deadline;
  const hours = requestedHours(asked ?? '');
  const [extended, extend] = useAction(async () => {
    const from = deadline ? new Date(deadline).getTime() : Date.now();
    await api('PUT', `/workspaces/${workspace.id}/extend`, { body: { deadline: new Date(from + hours * 3_600_000).toISOString() } });
    return `Extended by ${hoursLabel(hours)}.`;
  });
  if (asked === null) return null;
  const dismiss = () => {
    const rest = new URLSearchParams(search);
    rest.delete('extend');
    const query = rest.toString();
    navigate(`${pathname}${query ? `?${query}` : ''}`, { replace: true });
  };
  const running = workspace.latest_build.status === 'running';
  return (
    <div className="notice notice-warn extend-banner" role="region" aria-label="Workspace stop time">
      {running && deadline ? (
        <p>
          <strong data-deadline={deadline}>This workspace stops at {clock(deadline)}</strong>
        </p>
      ) : (
        <p>{running ? 'This workspace runs until it is stopped: there is nothing to extend.' : 'This workspace is not running.'}</p>
      )}
      <div className="inline-actions">
        {running && deadline && (
          <button type="button" className="button button-primary" disabled={extended.state === 'pending'} onClick={() => void extend()}>
            Extend by {hoursLabel(hours)}
          </button>
        )}
        <button type="button" className="button button-quiet" onClick={dismiss}>
          Dismiss
        </button>
        <ActionStatus state={extended} pending="Extending…" />
      </div>
    </div>
  );
}
