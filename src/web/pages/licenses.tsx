// For the deployment's owners: the licenses it holds, with what each entitles it to and until when,
// adding one by pasting its token, and removing one.
import { useState, type FormEvent } from 'react';
import type { License } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { StatusBadge, Time } from '../components/status.js';
import { isOwner, useSession } from '../session.js';

export function LicensesPage() {
  const { user } = useSession();
  if (!isOwner(user)) {
    return (
      <section className="page">
        <h1>Licenses</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <h1>Licenses</h1>
      <LicenseList />
    </section>
  );
}

function LicenseList() {
  const { data, error, reload } = useLoad(() => api<License[]>('GET', '/licenses'), []);
  const [removal, remove] = useAction(async (license: License) => {
    await api('DELETE', `/licenses/${license.id}`);
    reload();
    return `Removed license ${license.id}.`;
  });
  return (
    <>
      <section className="card" aria-labelledby="licenses-title">
        <h2 id="licenses-title">Licenses {data && <span className="muted">({data.length})</span>}</h2>
        <ActionStatus state={removal} pending="Removing…" />
        {!data ? (
          <Loading error={error} />
        ) : data.length === 0 ? (
          <p className="empty">No license has been added. The deployment runs with the features every deployment has.</p>
        ) : (
          <ul className="license-list">
            {data.map((license) => (
              <LicenseRow key={license.id} license={license} onRemove={() => void remove(license)} busy={removal.state === 'pending'} />
            ))}
          </ul>
        )}
      </section>
      <AddLicense onAdded={reload} />
    </>
  );
}

function LicenseRow({ license, onRemove, busy }: { license: License; onRemove: () => void; busy: boolean }) {
  const claims = license.claims;
  const paidUntil = secondsToIso(claims['license_expires']);
  const validUntil = secondsToIso(claims['exp']);
  const expired = validUntil !== undefined && Date.parse(validUntil) < Date.now();
  const features = Object.entries(isRecord(claims['features']) ? claims['features'] : {});
  const featureSet = typeof claims['feature_set'] === 'string' ? claims['feature_set'] : '';
  return (
    <li className="license-row" data-license={license.id}>
      <div className="license-head">
        <strong>License {license.id}</strong>
        <StatusBadge status={expired ? 'failed' : 'active'} label={expired ? 'expired' : 'valid'} />
        {claims['trial'] === true && <StatusBadge status="warning" label="trial" />}
        <span className="license-actions">
          <ConfirmButton label="Remove" question={`Remove license ${license.id}?`} onConfirm={onRemove} disabled={busy} danger />
        </span>
      </div>
      <dl className="facts">
        <dt>UUID</dt>
        <dd>
          <code>{license.uuid}</code>
        </dd>
        <dt>Uploaded</dt>
        <dd>
          <Time iso={license.uploaded_at} />
        </dd>
        {paidUntil && (
          <>
            <dt>Expires</dt>
            <dd>
              <Time iso={paidUntil} /> <span className="muted">({new Date(paidUntil).toLocaleDateString()})</span>
            </dd>
          </>
        )}
        {validUntil && validUntil !== paidUntil && (
          <>
            <dt>Grace period ends</dt>
            <dd>
              <Time iso={validUntil} />
            </dd>
          </>
        )}
        {typeof claims['account_id'] === 'string' && claims['account_id'] !== '' && (
          <>
            <dt>Account</dt>
            <dd>{claims['account_id']}</dd>
          </>
        )}
        <dt>Features</dt>
        <dd>
          {featureSet !== '' && <span className="muted">{featureSet} set. </span>}
          {claims['all_features'] === true ? (
            'all features'
          ) : features.length === 0 ? (
            <span className="muted">none listed</span>
          ) : (
            <ul className="license-features" aria-label={`Features of license ${license.id}`}>
              {features.map(([name, limit]) => (
                <li key={name}>
                  <code>{name}</code>
                  {typeof limit === 'number' && limit > 1 && <span className="muted"> up to {limit}</span>}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </li>
  );
}

function AddLicense({ onAdded }: { onAdded: () => void }) {
  const [token, setToken] = useState('');
  const [added, add] = useAction(async () => {
    const license = await api<License>('POST', '/licenses', { body: { license: token.trim() } });
    setToken('');
    onAdded();
    return `Added license ${license.id}.`;
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add();
  };
  return (
    <section className="card" aria-labelledby="add-license-title">
      <h2 id="add-license-title">Add a license</h2>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label className="field-label" htmlFor="license-token">
            License key
          </label>
          <textarea
            id="license-token"
            className="license-token"
            rows={4}
            value={token}
            onChange={(event) => setToken(event.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-describedby="license-token-hint"
            required
          />
          <p className="field-hint" id="license-token-hint">
            Paste the license token you were sent (three parts joined by dots).
          </p>
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={added.state === 'pending' || token.trim() === ''}>
            Add license
          </button>
          <ActionStatus state={added} pending="Checking the license…" />
        </div>
      </form>
    </section>
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A claim in seconds since the epoch as a time; undefined when the claim is not a number. */
function secondsToIso(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value * 1000).toISOString() : undefined;
}
