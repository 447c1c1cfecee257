// How every action shows itself: pending while it runs, done when it worked, and the API's
// message and detail when it did not.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../api.js';
import { Link } from '../router.js';

/** The state of one action the user started. */
export type ActionState =
  { state: 'idle' } | { state: 'pending' } | { state: 'done'; message: string } | { state: 'error'; error: unknown };

/** Runs an async action, tracking its state; a second start while one runs is ignored. */
export function useAction<A extends unknown[]>(
  run: (...args: A) => Promise<string | void>,
): [ActionState, (...args: A) => Promise<void>, () => void] {
  const [state, setState] = useState<ActionState>({ state: 'idle' });
  const running = useRef(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const start = useCallback(
    async (...args: A) => {
      if (running.current) return;
      running.current = true;
      setState({ state: 'pending' });
      try {
        const message = await run(...args);
        if (mounted.current) setState({ state: 'done', message: message ?? 'Done.' });
      } catch (error) {
        if (mounted.current) setState({ state: 'error', error });
      } finally {
        running.current = false;
      }
    },
    [run],
  );
  const reset = useCallback(() => setState({ state: 'idle' }), []);
  return [state, start, reset];
}

/** An error as the API gave it: its message, then its detail and field messages. */
export function ErrorMessage({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : String(error);
  const detail = error instanceof ApiError ? error.detail : '';
  const validations = error instanceof ApiError ? error.validations : [];
  return (
    <div className="notice notice-error" role="alert">
      <strong>{message}</strong>
      {detail && <p className="notice-detail">{detail}</p>}
      {validations.length > 0 && (
        <ul>
          {validations.map((validation) => (
            <li key={validation.field}>
              <code>{validation.field}</code>: {validation.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The state of an action, next to the control that started it. */
export function ActionStatus({ state, pending = 'Working…' }: { state: ActionState; pending?: string }) {
  if (state.state === 'pending')
    return (
      <span className="action-status" role="status">
        <span className="spinner" aria-hidden="true" /> {pending}
      </span>
    );
  if (state.state === 'done')
    return (
      <span className="action-status action-done" role="status">
        {state.message}
      </span>
    );
  if (state.state === 'error') return <ErrorMessage error={state.error} />;
  return null;
}

/** Loads data for a page; `reload` fetches again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
): { data: T | undefined; error: unknown; reload: () => void; setData: (data: T) => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setError(undefined);
    load().then(
      (value) => current && setData(value),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  return { data, error, reload: () => setGeneration((n) => n + 1), setData };
}

/** What a page shows while its data loads, or why it could not. */
export function Loading({ error, children }: { error: unknown; children?: ReactNode }) {
  // A page whose subject is gone (deleted, renamed, or a mistyped link) offers a way on.
  if (error instanceof ApiError && error.status === 404)
    return (
      <>
        <ErrorMessage error={error} />
        <p>
          <Link href="/workspaces">Back to your workspaces</Link>
        </p>
      </>
    );
  if (error) return <ErrorMessage error={error} />;
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {children ?? 'Loading…'}
    </p>
  );
}
