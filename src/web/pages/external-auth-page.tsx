// One external auth provider (a Git provider or another OAuth2 app) and the user's link to it: the
// page that templates, the agent and `gitaskpass` send users to. Linking goes through the
// provider's own sign-in (a full navigation and back) or, where the provider has it, the device flow.
import { useEffect, useRef, useState } from 'react';
import type {
  DeleteExternalAuthByIDResponse,
  ExternalAuth,
  ExternalAuthDevice,
  ListUserExternalAuthResponse,
} from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, ErrorMessage, Loading, useAction, useLoad } from '../components/feedback.js';
import { LinkState, relinkReason } from '../components/link-state.js';
import { Icon } from '../components/status.js';
import { externalAuthPagePath, LINKED_MESSAGE, linkStartUrl } from '../external-auth-paths.js';
import { Link, useLocation } from '../router.js';

export function ExternalAuthPage({ provider: id }: { provider: string }) {
  const { search } = useLocation();
  const popup = search.get('popup') === 'true';
  // Set by the server's callback on the way back, so that a failed link is told, not retried forever.
  const redirected = search.get('redirected') === 'true';
  // One after the other: reading the provider checks the token, which may mark the link for a re-link.
  const state = useLoad(async () => {
    const one = await api<ExternalAuth>('GET', `/external-auth/${encodeURIComponent(id)}`);
    return { auth: one, list: await api<ListUserExternalAuthResponse>('GET', '/external-auth') };
  }, [id]);
  const auth = { data: state.data?.auth, error: state.error };
  const provider = state.data?.list.providers.find((candidate) => candidate.id === id);
  const link = state.data?.list.links.find((candidate) => candidate.provider_id === id);
  const name = auth.data?.display_name || provider?.display_name || id;
  const back = `${externalAuthPagePath(id)}?redirected=true${popup ? '&popup=true' : ''}`;
  const start = linkStartUrl(id, back);
  const linked = auth.data?.authenticated === true;
  // A linked device-flow provider is linked again through a new code.
  const [relinking, setRelinking] = useState(false);
  const reload = () => {
    setRelinking(false);
    state.reload();
  };

  // A window the create page opened starts linking at once, and closes itself once linked: the
  // page that opened it is watching for the link.
  const startedOnce = useRef(false);
  useEffect(() => {
    if (!popup || !auth.data || startedOnce.current) return;
    if (auth.data.authenticated) {
      // The page that opened this window reads the link again at once rather than at its next poll.
      (window.opener as Window | null)?.postMessage({ type: LINKED_MESSAGE, provider: id }, location.origin);
      window.close();
      return;
    }
    if (!auth.data.device && !redirected) {
      startedOnce.current = true;
      location.assign(start);
    }
  }, [popup, auth.data, redirected, start, id]);

  const [unlinked, unlink] = useAction(async () => {
    const answer = await api<DeleteExternalAuthByIDResponse>('DELETE', `/external-auth/${encodeURIComponent(id)}`);
    reload();
    if (answer.token_revoked) return `Unlinked ${name}; the provider revoked the token too.`;
    if (answer.token_revocation_error) return `Unlinked ${name}. The provider did not revoke the token: ${answer.token_revocation_error}`;
    return `Unlinked ${name}.`;
  });

  if (!auth.data) {
    const missing = auth.error instanceof ApiError && auth.error.status === 404;
    return (
      <section className="page page-narrow">
        <h1>External authentication</h1>
        {missing ? (
          <ErrorMessage error={new Error(`This deployment has no external auth provider "${id}".`)} />
        ) : (
          <Loading error={auth.error} />
        )}
      </section>
    );
  }

  const reason = linked ? undefined : relinkReason(link);
  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <Link href="/settings/external-auth">External authentication</Link>
      </p>
      <div className="card">
        <div className="card-header">
          <Icon src={provider?.display_icon} size={32} />
          <h1>{name}</h1>
          <LinkState linked={linked} reason={reason} />
        </div>
        {linked ? (
          <>
            <p>
              {auth.data.user ? (
                <>
                  Linked as <strong>{auth.data.user.login || auth.data.user.name}</strong>.
                </>
              ) : (
                'Linked.'
              )}{' '}
              Git in your workspaces uses this link for {name}.
            </p>
            {popup && <p className="muted">You can close this window.</p>}
          </>
        ) : reason ? (
          <p>
            Re-link needed: {reason}. Link {name} again so that git in your workspaces can reach it.
          </p>
        ) : (
          <p>Link your {name} account so that git in your workspaces can reach it without asking for a password.</p>
        )}
        {!linked && redirected && !auth.data.device && (
          <div className="notice notice-error" role="alert">
            <strong>The link did not complete.</strong>
            <p className="notice-detail">
              {name} sent you back, but its token could not be validated. The provider may be configured wrongly; try again or ask the
              deployment&apos;s owner.
            </p>
          </div>
        )}
        {(!linked || relinking) && auth.data.device && <DeviceLink id={id} name={name} onLinked={reload} />}
        <div className="form-actions">
          {auth.data.device && linked && !relinking && (
            <button type="button" className="button" onClick={() => setRelinking(true)}>
              Re-link {name}
            </button>
          )}
          {!auth.data.device && (
            <a className={linked ? 'button' : 'button button-primary'} href={start}>
              {linked ? `Re-link ${name}` : redirected || reason ? `Link ${name} again` : `Link ${name}`}
            </a>
          )}
          {(linked || link) && (
            <ConfirmButton
              label="Unlink"
              question={`Unlink ${name}? Git in your workspaces loses access until you link again.`}
              danger
              disabled={unlinked.state === 'pending'}
              onConfirm={() => void unlink()}
            />
          )}
          <ActionStatus state={unlinked} pending="Unlinking…" />
        </div>
      </div>
    </section>
  );
}

/** How often to ask again when the provider says to slow down (RFC 8628, section 3.5). */
const SLOW_DOWN_SECONDS = 5;

type DeviceState =
  | { step: 'starting' }
  | { step: 'waiting'; device: ExternalAuthDevice; until: number }
  | { step: 'expired' }
  | { step: 'failed'; error: unknown };

/**
 * The device flow: the provider's code for the user to enter at its verification page, then the
 * exchange asked again at the interval the provider set until the user has entered it.
 */
function DeviceLink({ id, name, onLinked }: { id: string; name: string; onLinked: () => void }) {
  const [state, setState] = useState<DeviceState>({ step: 'starting' });
  const [attempt, setAttempt] = useState(0);
  // The page's reload changes on every render; the flow must not restart with it.
  const linkedRef = useRef(onLinked);
  linkedRef.current = onLinked;
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const path = `/external-auth/${encodeURIComponent(id)}/device`;
    const run = async () => {
      let device: ExternalAuthDevice;
      try {
        device = await api<ExternalAuthDevice>('GET', path);
      } catch (error) {
        if (current) setState({ step: 'failed', error });
        return;
      }
      if (!current) return;
      const until = Date.now() + device.expires_in * 1000;
      setState({ step: 'waiting', device, until });
      let interval = Math.max(device.interval, 1);
      const exchange = async () => {
        if (!current) return;
        if (Date.now() > until) {
          setState({ step: 'expired' });
          return;
        }
        try {
          await api('POST', path, { body: { device_code: device.device_code } });
          if (current) linkedRef.current();
          return;
        } catch (error) {
          if (!current) return;
          const detail = error instanceof ApiError ? error.detail : '';
          if (detail.includes('slow_down')) interval += SLOW_DOWN_SECONDS;
          else if (!detail.includes('authorization_pending')) {
            setState({ step: 'failed', error });
            return;
          }
        }
        timer = setTimeout(() => void exchange(), interval * 1000);
      };
      timer = setTimeout(() => void exchange(), interval * 1000);
    };
    void run();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [id, attempt]);

  const again = (
    <button type="button" className="button" onClick={() => setAttempt((n) => n + 1)}>
      Get a new code
    </button>
  );
  if (state.step === 'starting') return <Loading error={undefined}>Asking {name} for a code…</Loading>;
  if (state.step === 'failed')
    return (
      <>
        <ErrorMessage error={state.error} />
        {again}
      </>
    );
  if (state.step === 'expired') return <p>The code expired before it was entered. {again}</p>;
  return (
    <div className="device-code">
      <p>
        Enter this code at{' '}
        <a href={state.device.verification_uri} target="_blank" rel="noreferrer">
          {state.device.verification_uri}
        </a>
        :
      </p>
      <p className="device-user-code" aria-label="Code to enter">
        <code>{state.device.user_code}</code>
      </p>
      <Loading error={undefined}>Waiting for you to enter the code at {name}…</Loading>
    </div>
  );
}
