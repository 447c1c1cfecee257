// A log page searched and paged through its URL (`?q=…&offset=…`): the audit log, the connection log.
import { useEffect, useState, type FormEvent } from 'react';
import { api } from './api.js';
import { useLoad } from './components/feedback.js';
import { navigate, useLocation } from './router.js';
import { withTerm } from './search-terms.js';

/** Rows a log page shows at a time. */
export const LOG_PAGE_SIZE = 25;

/** What a log page reads and does: its search and page from the URL, the answer, and the moves that change them. */
export interface SearchedLog<Answer> {
  readonly query: string;
  readonly offset: number;
  /** What the text box holds, applied on submit. */
  readonly draft: string;
  setDraft(draft: string): void;
  readonly data: Answer | undefined;
  readonly error: unknown;
  /** Sets one `key:value` term (a menu), at once, keeping what the text box holds; empty removes it. */
  setTerm(key: string, value: string): void;
  submit(event: FormEvent): void;
  goToOffset(offset: number): void;
}

/** Reads the page `pagePath` of the log the API serves at `apiPath`. */
export function useSearchedLog<Answer>(pagePath: string, apiPath: string): SearchedLog<Answer> {
  const { search } = useLocation();
  const query = search.get('q') ?? '';
  const offset = Math.max(0, Number(search.get('offset')) || 0);
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const { data, error } = useLoad(
    () => api<Answer>('GET', apiPath, { query: { q: query || undefined, limit: LOG_PAGE_SIZE, offset } }),
    [query, offset],
  );
  const go = (nextQuery: string, nextOffset: number) => {
    const params = new URLSearchParams();
    if (nextQuery.trim() !== '') params.set('q', nextQuery.trim());
    if (nextOffset > 0) params.set('offset', String(nextOffset));
    const rest = params.toString();
    navigate(`${pagePath}${rest ? `?${rest}` : ''}`);
  };
  return {
    query,
    offset,
    draft,
    setDraft,
    data,
    error,
    setTerm: (key, value) => go(withTerm(draft, key, value), 0),
    submit: (event) => {
      event.preventDefault();
      go(draft, 0);
    },
    goToOffset: (next) => go(query, next),
  };
}
