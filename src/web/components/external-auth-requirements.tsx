// The external auth providers a template version requires, on the create page: a button per
// provider that links it in a window of its own, a check mark once linked, and what still blocks
// creating the workspace.
import { useEffect, useState } from 'react';
import type { TemplateVersionExternalAuth } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { externalAuthPagePath, LINKED_MESSAGE } from '../external-auth-paths.js';
import { ErrorMessage, Loading, useLoad } from './feedback.js';
import { Icon } from './status.js';

/** How often the requirements are read again while the user links a provider in the other window. */
const POLL_MS = 2000;
/** Polling stops after this long: the user has left the other window alone. */
const POLL_LIMIT_MS = 10 * 60_000;

/**
 * Lists what version `versionId` requires and tells `onBlocking` why creating must wait (a sentence)
 * or that it need not (undefined). A failure to read the requirements does not block: the server
 * checks them again on create.
 */
export function ExternalAuthRequirements({
  versionId,
  onBlocking,
}: {
  versionId: string;
  onBlocking: (reason: string | undefined) => void;
}) {
  const required = useLoad(
    () => api<TemplateVersionExternalAuth[]>('GET', `/templateversions/${encodeURIComponent(versionId)}/external-auth`),
    [versionId],
  );
  const [pollingSince, setPollingSince] = useState<number>();
  const [blocked, setBlocked] = useState<string>();
  const auths = required.data;
  const missing = (auths ?? []).filter((auth) => !auth.optional && !auth.authenticated);
  const unlinked = (auths ?? []).filter((auth) => !auth.authenticated);

  const reason = !auths
    ? required.error
      ? undefined
      : 'Checking which accounts the template needs…'
    : missing.length > 0
      ? `Link ${missing.map((auth) => auth.display_name || auth.id).join(', ')} first: the template requires it.`
      : undefined;
  useEffect(() => onBlocking(reason), [reason, onBlocking]);

  // Read again every 2 s while a link is under way in the other window, until nothing is left unlinked.
  const { reload } = required;
  useEffect(() => {
    if (pollingSince === undefined) return;
    if (unlinked.length === 0 || Date.now() - pollingSince > POLL_LIMIT_MS) {
      setPollingSince(undefined);
      return;
    }
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [pollingSince, auths, unlinked.length, reload]);

  // The linking window says when it is done; the poll stays for a window that cannot say so.
  useEffect(() => {
    const heard = (event: MessageEvent<unknown>) => {
      const data = event.data as { type?: unknown } | null;
      if (event.origin === location.origin && data?.type === LINKED_MESSAGE) reload();
    };
    window.addEventListener('message', heard);
    return () => window.removeEventListener('message', heard);
  }, [reload]);

  if (!auths) return required.error ? <ErrorMessage error={required.error} /> : <Loading error={undefined}>{reason}</Loading>;
  if (auths.length === 0) return null;

  const link = (auth: TemplateVersionExternalAuth) => {
    const path = externalAuthPagePath(auth.id, { popup: true });
    const opened = window.open(path, `external-auth-${auth.id}`, 'width=900,height=700');
    setBlocked(opened ? undefined : auth.id);
    setPollingSince(Date.now());
  };

  return (
    <div className="form-section">
      <h2>External authentication</h2>
      <p className="field-hint">This template uses these accounts inside the workspace.</p>
      <ul className="resource-list external-auth-list" aria-label="External authentication">
        {auths.map((auth) => {
          const name = auth.display_name || auth.id;
          return (
            <li key={auth.id} className="resource-head" aria-label={name}>
              <Icon src={auth.display_icon} />
              <strong>{name}</strong>
              {auth.optional && <span className="badge badge-idle">optional</span>}
              {auth.authenticated ? (
                <span className="badge badge-good">
                  <span aria-hidden="true">✓</span> Linked
                </span>
              ) : (
                <>
                  {!auth.optional && <span className="badge badge-warn">required</span>}
                  <button type="button" className="button" onClick={() => link(auth)}>
                    Link {name}
                  </button>
                  {pollingSince !== undefined && (
                    <span className="action-status" role="status">
                      <span className="spinner" aria-hidden="true" /> Waiting for the link…
                    </span>
                  )}
                  {blocked === auth.id && (
                    <span className="field-problem" role="alert">
                      The browser blocked the window.{' '}
                      <a href={externalAuthPagePath(auth.id)} target="_blank" rel="noreferrer">
                        Open the {name} page
                      </a>{' '}
                      instead.
                    </span>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
