// The workspaces the user may see, a page at a time (paged by the API in SQL), filtered with the
// API's search syntax, followed live over one stream for the whole page, with batch actions.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Workspace, WorkspacesResponse } from '../../sdk/wire/index.js';
import { api, watchWorkspaces } from '../api.js';
import { ErrorMessage, Loading, useLoad } from '../components/feedback.js';
import { Pager } from '../components/pager.js';
import { QuotaSummary } from '../components/quota.js';
import { WorkspaceBatchBar } from '../components/workspace-batch-bar.js';
import { WorkspaceFilterMenus } from '../components/workspace-filter-menus.js';
import { WorkspaceTable } from '../components/workspace-table.js';
import { Link, navigate, useLocation } from '../router.js';
import { withTerm } from '../search-terms.js';

const DEFAULT_FILTER = 'owner:me';
/** Rows on a page. */
export const WORKSPACE_PAGE_SIZE = 25;

export function WorkspacesPage() {
  const { search } = useLocation();
  const query = search.get('q') ?? DEFAULT_FILTER;
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1);
  const offset = (page - 1) * WORKSPACE_PAGE_SIZE;
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const key = `${offset} ${query}`;
  const loaded = useLoad(
    async () => ({
      key,
      answer: await api<WorkspacesResponse>('GET', '/workspaces', { query: { q: query, limit: WORKSPACE_PAGE_SIZE, offset } }),
    }),
    [query, offset],
  );
  const { error, reload } = loaded;
  // Rows read for another search or page are not shown as if they matched this one.
  const data = loaded.data?.key === key ? loaded.data.answer : undefined;
  const rows = useLiveRows(data?.workspaces, reload);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setSelected(new Set()), [query, offset]);

  const go = (nextQuery: string, nextPage: number) => {
    const params = new URLSearchParams({ q: nextQuery.trim() });
    if (nextPage > 1) params.set('page', String(nextPage));
    navigate(`/workspaces?${params.toString()}`);
  };
  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    go(draft, 1);
  };
  const select = (ids: readonly string[], on: boolean) =>
    setSelected((before) => {
      const next = new Set(before);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  const chosen = rows.workspaces.filter((workspace) => selected.has(workspace.id));

  return (
    <section className="page">
      <div className="page-header">
        <h1>Workspaces</h1>
        <QuotaSummary refresh={data} />
        <Link href="/workspaces/new" className="button button-primary">
          New workspace
        </Link>
      </div>
      <form className="filter" role="search" onSubmit={applyFilter} aria-label="Filter workspaces">
        <label className="field field-inline">
          <span className="visually-hidden">Filter workspaces</span>
          <input
            type="search"
            name="q"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="owner:me status:running template:name"
            aria-describedby={error !== undefined ? 'filter-error filter-hint' : 'filter-hint'}
            aria-invalid={error !== undefined}
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        <WorkspaceFilterMenus
          query={query}
          setTerm={(key, value) => go(withTerm(draft, key, value), 1)}
          ready={loaded.data !== undefined || error !== undefined}
        />
        <p id="filter-hint" className="field-hint">
          Search terms: <code>owner:</code>, <code>name:</code>, <code>status:</code>, <code>template:</code>, <code>outdated:true</code>,{' '}
          <code>favorite:true</code>, or a bare word for the name.
        </p>
        {error !== undefined && (
          // A refused search shows the server's reason here, and no rows of the search before it.
          <div id="filter-error" className="workspace-filter-error">
            <ErrorMessage error={error} />
          </div>
        )}
      </form>
      {error !== undefined ? null : !data ? (
        <Loading error={undefined} />
      ) : data.workspaces.length === 0 ? (
        <div className="empty">
          <p>{offset > 0 ? `No workspaces on page ${page} of “${query}”.` : `No workspaces match “${query}”.`}</p>
          <Link href="/workspaces/new" className="button button-primary">
            Create a workspace
          </Link>
        </div>
      ) : (
        <>
          <WorkspaceBatchBar selected={chosen} onClear={() => setSelected(new Set())} onDone={reload} />
          {rows.streamError && (
            <p className="muted" role="status">
              {rows.streamError} The list is shown as it was read.
            </p>
          )}
          <WorkspaceTable workspaces={rows.workspaces} selected={selected} onSelect={select} onChange={rows.update} />
          <Pager
            label="Workspace pages"
            offset={offset}
            limit={WORKSPACE_PAGE_SIZE}
            shown={data.workspaces.length}
            count={data.count}
            onOffset={(next) => go(query, Math.floor(next / WORKSPACE_PAGE_SIZE) + 1)}
          />
        </>
      )}
    </section>
  );
}

/**
 * The rows of the page as the one list stream last told them: every row starts as the list read
 * it and changes with its stream events; a row whose workspace was deleted reads the list again.
 */
function useLiveRows(
  listed: readonly Workspace[] | undefined,
  reload: () => void,
): { workspaces: Workspace[]; update: (workspace: Workspace) => void; streamError: string } {
  const [live, setLive] = useState<ReadonlyMap<string, Workspace>>(new Map());
  const [streamError, setStreamError] = useState('');
  const ids = useMemo(() => (listed ?? []).map((workspace) => workspace.id), [listed]);
  const update = useCallback((workspace: Workspace) => setLive((before) => new Map(before).set(workspace.id, workspace)), []);
  useEffect(() => {
    setLive(new Map());
    setStreamError('');
    if (ids.length === 0) return undefined;
    return watchWorkspaces(ids, update, (message, workspaceId) => {
      // One workspace gone from under the page: the page is read again, with a stream of its own.
      if (workspaceId) reload();
      else setStreamError(message);
    });
  }, [ids]);
  useEffect(() => {
    if ([...live.values()].some((workspace) => workspace.latest_build.status === 'deleted')) reload();
  }, [live]);
  const workspaces = (listed ?? []).map((workspace) => live.get(workspace.id) ?? workspace);
  return { workspaces, update, streamError };
}
