// Menus beside the workspace filter: status, template and owner. Each sets or clears its one
// `key:value` term of the search text and leaves the rest of it alone.
import type { Template, User, UsersResponse } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { termValue } from '../search-terms.js';
import { useLoad } from './feedback.js';

const STATUSES = ['running', 'stopped', 'starting', 'stopping', 'pending', 'failed', 'canceled', 'canceling', 'deleting'] as const;
/** Owners a menu lists; anyone else is still reached by typing `owner:`. */
const OWNER_LIMIT = 100;

const NONE = Promise.resolve(undefined);

export function WorkspaceFilterMenus({
  query,
  setTerm,
  ready,
}: {
  query: string;
  setTerm: (key: string, value: string) => void;
  /** Whether to read the menus' choices: only once the list has been read, so they do not hold it up. */
  ready: boolean;
}) {
  const templates = useLoad(() => (ready ? api<Template[]>('GET', '/templates') : NONE), [ready]);
  // Only users the viewer may read come back; a viewer who sees nobody else gets no owner menu.
  const users = useLoad(
    () =>
      ready
        ? api<UsersResponse>('GET', '/users', { query: { limit: OWNER_LIMIT } }).catch(() => ({ users: [] as User[], count: 0 }))
        : NONE,
    [ready],
  );
  const status = termValue(query, 'status');
  const template = termValue(query, 'template');
  const owner = termValue(query, 'owner');
  const templateNames = (templates.data ?? []).map((each) => ({ name: each.name, label: each.display_name || each.name }));
  const owners = (users.data?.users ?? []).map((each) => each.username);
  return (
    <>
      <label className="field filter-menu">
        <span className="field-label">Status</span>
        <select value={status} onChange={(event) => setTerm('status', event.target.value)}>
          <option value="">Any</option>
          {withCurrent(STATUSES, status).map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
      </label>
      <label className="field filter-menu">
        <span className="field-label">Template</span>
        <select value={template} onChange={(event) => setTerm('template', event.target.value)}>
          <option value="">Any</option>
          {template !== '' && !templateNames.some((each) => each.name === template) && <option value={template}>{template}</option>}
          {templateNames.map((each) => (
            <option key={each.name} value={each.name}>
              {each.label}
            </option>
          ))}
        </select>
      </label>
      {owners.length > 1 && (
        <label className="field filter-menu">
          <span className="field-label">Owner</span>
          <select value={owner} onChange={(event) => setTerm('owner', event.target.value)}>
            <option value="">Anyone</option>
            {withCurrent(['me', ...owners], owner).map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}

/** The choices, with what the search already holds added when it is not one of them. */
function withCurrent(choices: readonly string[], current: string): string[] {
  return current === '' || choices.includes(current) ? [...choices] : [current, ...choices];
}
