// The user's links to the deployment's external auth providers: which account each is linked as,
// when its access token expires and whether it renews itself, and the way to link, re-link or unlink.
import { useEffect } from 'react';
import type {
  DeleteExternalAuthByIDResponse,
  ExternalAuth,
  ExternalAuthLink,
  ExternalAuthLinkProvider,
  ListUserExternalAuthResponse,
} from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { LinkState, relinkReason } from '../components/link-state.js';
import { Icon, Time } from '../components/status.js';
import { externalAuthPagePath, linkStartUrl } from '../external-auth-paths.js';
import { ACCOUNT_TABS, SectionTabs } from '../components/section-tabs.js';
import { Link } from '../router.js';

const HERE = '/settings/external-auth';

export function ExternalAuthSettingsPage() {
  const list = useLoad(() => api<ListUserExternalAuthResponse>('GET', '/external-auth'), []);
  if (!list.data) return <Loading error={list.error} />;
  const { providers, links } = list.data;
  // A link whose provider the deployment no longer configures is listed too, so it can be removed.
  const orphans = links.filter((link) => !providers.some((provider) => provider.id === link.provider_id));
  return (
    <section className="page">
      <SectionTabs label="Account settings" tabs={ACCOUNT_TABS} />
      <div className="page-header">
        <div>
          <h1>External authentication</h1>
          <p className="muted">
            Accounts of Git providers and other services you link once; git in every workspace then uses them without asking for a password.
          </p>
        </div>
      </div>
      {providers.length === 0 && orphans.length === 0 ? (
        <div className="empty">
          <p>This deployment has no external auth providers configured.</p>
        </div>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="External authentication">
            <thead>
              <tr>
                <th>Provider</th>
                <th>Link</th>
                <th>Access token</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {providers.map((provider) => (
                <LinkRow
                  key={provider.id}
                  id={provider.id}
                  provider={provider}
                  link={links.find((link) => link.provider_id === provider.id)}
                  changed={list.reload}
                />
              ))}
              {orphans.map((link) => (
                <LinkRow key={link.provider_id} id={link.provider_id} provider={undefined} link={link} changed={list.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Go's zero time, which the API gives as the expiry of a token that does not expire. */
function neverExpires(iso: string): boolean {
  return new Date(iso).getUTCFullYear() <= 1;
}

function LinkRow({
  id,
  provider,
  link,
  changed,
}: {
  id: string;
  provider: ExternalAuthLinkProvider | undefined;
  link: ExternalAuthLink | undefined;
  changed: () => void;
}) {
  const name = provider?.display_name || id;
  const reason = relinkReason(link);
  const linked = link?.authenticated === true;
  // The account's name comes from the provider, so it is asked only for live links.
  const account = useLoad(
    () => (linked && provider ? api<ExternalAuth>('GET', `/external-auth/${encodeURIComponent(id)}`) : Promise.resolve(undefined)),
    [id, linked, link?.updated_at],
  );
  const login = account.data?.user?.login || account.data?.user?.name;
  // The provider no longer accepts the token: the list, read before it was asked, is read again.
  const refused = linked && account.data?.authenticated === false;
  useEffect(() => {
    if (refused) changed();
  }, [refused]);
  const [unlinked, unlink] = useAction(async () => {
    const answer = await api<DeleteExternalAuthByIDResponse>('DELETE', `/external-auth/${encodeURIComponent(id)}`);
    changed();
    return answer.token_revoked ? `Unlinked ${name}; the provider revoked the token too.` : `Unlinked ${name}.`;
  });
  const expires = link && !neverExpires(link.expires) ? link.expires : undefined;
  const expired = expires !== undefined && new Date(expires).getTime() <= Date.now();
  const refreshes = link?.has_refresh_token === true && provider?.allow_refresh !== false;
  return (
    <tr aria-label={name}>
      <td>
        <span className="resource-head">
          <Icon src={provider?.display_icon} />
          {provider ? <Link href={externalAuthPagePath(id)}>{name}</Link> : name}
        </span>
        {!provider && <div className="field-hint">No longer configured on this deployment.</div>}
      </td>
      <td>
        <LinkState linked={linked} reason={reason} />
        {linked && login && (
          <div className="field-hint">
            as <strong>{login}</strong>
          </div>
        )}
        {reason && <div className="field-hint">Re-link needed: {reason}</div>}
      </td>
      <td>
        {!link ? (
          <span className="muted">—</span>
        ) : (
          <>
            <div>
              {expires === undefined ? (
                'Does not expire'
              ) : (
                <>
                  {expired ? 'Expired ' : 'Expires '}
                  <Time iso={expires} />
                </>
              )}
            </div>
            <div className="field-hint">
              {refreshes ? 'Renews itself when it expires.' : 'Does not renew itself: link again once it expires.'}
            </div>
          </>
        )}
      </td>
      <td>
        <div className="inline-actions">
          {provider && !provider.device && (
            <a className={link ? 'button' : 'button button-primary'} href={linkStartUrl(id, HERE)}>
              {link ? `Re-link ${name}` : `Link ${name}`}
            </a>
          )}
          {provider?.device && (
            <Link className={link ? 'button' : 'button button-primary'} href={externalAuthPagePath(id)}>
              {link ? `Re-link ${name}` : `Link ${name}`}
            </Link>
          )}
          {link && (
            <ConfirmButton
              label={`Unlink ${name}`}
              question={`Unlink ${name}? Git in your workspaces loses access until you link again.`}
              confirmLabel="Unlink"
              danger
              disabled={unlinked.state === 'pending'}
              onConfirm={() => void unlink()}
            />
          )}
          <ActionStatus state={unlinked} pending="Unlinking…" />
        </div>
      </td>
    </tr>
  );
}
