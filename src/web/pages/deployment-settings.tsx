// For the deployment's owners: the configuration the daemon runs with, option by option and grouped
// as `cove serve --help` groups them, with where each value came from, and the build and usage
// figures beside it. Secret options never carry their value here: the server blanks them.
import { useDeferredValue, useMemo, useState } from 'react';
import type { BuildInfo, DeploymentConfig, DeploymentOption, DeploymentStats } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from '../components/feedback.js';
import { DEPLOYMENT_TABS, SectionTabs } from '../components/section-tabs.js';
import { StatusBadge, Time } from '../components/status.js';
import { isOwner, useSession } from '../session.js';

export function DeploymentSettingsPage() {
  const { user } = useSession();
  if (!isOwner(user)) {
    return (
      <section className="page">
        <h1>Deployment settings</h1>
        <p>Only the deployment’s owners see this page.</p>
      </section>
    );
  }
  return (
    <section className="page">
      <SectionTabs label="Deployment" tabs={DEPLOYMENT_TABS} />
      <h1>Deployment settings</h1>
      <Summary />
      <Options />
    </section>
  );
}

/** The build the daemon runs and the deployment's figures. */
function Summary() {
  const build = useLoad(() => api<BuildInfo>('GET', '/buildinfo'), []);
  const stats = useLoad(() => api<DeploymentStats>('GET', '/deployment/stats'), []);
  return (
    <section className="card" aria-labelledby="build-title">
      <h2 id="build-title">Build and usage</h2>
      {build.error !== undefined && <Loading error={build.error} />}
      {stats.error !== undefined && <Loading error={stats.error} />}
      {!build.data && !stats.data && build.error === undefined && stats.error === undefined && <Loading error={undefined} />}
      <dl className="facts">
        {build.data && (
          <>
            <dt>Version</dt>
            <dd data-fact="version">{build.data.version}</dd>
            <dt>Deployment ID</dt>
            <dd>
              <code>{build.data.deployment_id}</code>
            </dd>
            <dt>Access URL</dt>
            <dd>{build.data.dashboard_url || build.data.external_url}</dd>
            <dt>Agent API</dt>
            <dd>{build.data.agent_api_version}</dd>
            <dt>Provisioner API</dt>
            <dd>{build.data.provisioner_api_version}</dd>
          </>
        )}
        {stats.data && (
          <>
            <dt>Workspaces</dt>
            <dd data-fact="workspaces">
              {stats.data.workspaces.running} running, {stats.data.workspaces.stopped} stopped, {stats.data.workspaces.building} building,{' '}
              {stats.data.workspaces.pending} pending, {stats.data.workspaces.failed} failed
            </dd>
            <dt>Sessions</dt>
            <dd>
              {stats.data.session_count.ssh} SSH, {stats.data.session_count.vscode} VS Code, {stats.data.session_count.jetbrains} JetBrains,{' '}
              {stats.data.session_count.reconnecting_pty} terminal
            </dd>
            <dt>Figures collected</dt>
            <dd>
              <Time iso={stats.data.collected_at} />
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** Every option the server shows, by group, narrowed by a search over its names and text. */
function Options() {
  const { data, error } = useLoad(() => api<DeploymentConfig>('GET', '/deployment/config'), []);
  const [query, setQuery] = useState('');
  const [changedOnly, setChangedOnly] = useState(false);
  const deferred = useDeferredValue(query);
  const groups = useMemo(() => groupOptions(data?.options ?? [], deferred, changedOnly), [data, deferred, changedOnly]);
  return (
    <section className="card" aria-labelledby="options-title">
      <div className="card-header">
        <h2 id="options-title">Options</h2>
      </div>
      <div className="settings-filter">
        <label className="field-inline">
          <span>Search options</span>
          <input type="search" value={query} onChange={(event) => setQuery(event.target.value)} placeholder="Name, flag or variable" />
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={changedOnly} onChange={(event) => setChangedOnly(event.target.checked)} />
          Only options not at their default
        </label>
      </div>
      {!data ? (
        <Loading error={error} />
      ) : groups.length === 0 ? (
        <p className="empty">No option matches “{deferred}”.</p>
      ) : (
        groups.map(([group, options]) => (
          <section key={group} className="settings-group" aria-labelledby={groupId(group)}>
            <h3 id={groupId(group)}>{group}</h3>
            <ul className="settings-list">
              {options.map((option) => (
                <OptionRow key={option.flag || option.name} option={option} />
              ))}
            </ul>
          </section>
        ))
      )}
    </section>
  );
}

function OptionRow({ option }: { option: DeploymentOption }) {
  const secret = option.annotations?.['secret'] === 'true';
  const fromDefault = option.value_source === 'default' || option.value_source === '';
  return (
    <li className="settings-option" data-option={option.flag}>
      <div className="settings-option-head">
        <strong>{option.name}</strong>
        {secret && <StatusBadge status="disabled" label="secret" />}
        <span className="muted settings-source">
          {fromDefault ? 'default' : `set by ${SOURCE_NAMES[option.value_source] ?? option.value_source}`}
        </span>
      </div>
      <p className="muted settings-description">{option.description}</p>
      <dl className="settings-facts">
        <dt>Value</dt>
        <dd className="settings-value">
          {secret ? <span className="muted">{fromDefault ? 'not set' : 'set, not shown'}</span> : <OptionValue option={option} />}
        </dd>
        {option.flag !== '' && (
          <>
            <dt>Flag</dt>
            <dd>
              <code>--{option.flag}</code>
            </dd>
          </>
        )}
        {option.env !== '' && (
          <>
            <dt>Environment</dt>
            <dd>
              <code>{option.env}</code>
            </dd>
          </>
        )}
        {option.default !== undefined && (
          <>
            <dt>Default</dt>
            <dd>
              <code>{option.default}</code>
            </dd>
          </>
        )}
      </dl>
    </li>
  );
}

const SOURCE_NAMES: Readonly<Record<string, string>> = { flag: 'flag', env: 'environment', yaml: 'config file' };

/** A value in words: lists one per line, durations (nanoseconds on the wire) as a length of time. */
function OptionValue({ option }: { option: DeploymentOption }) {
  const value = option.value;
  if (value === null || value === undefined || value === '') return <span className="muted">empty</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    return (
      <ul className="plain-list">
        {value.map((item, index) => (
          <li key={index}>
            <code>{typeof item === 'string' ? item : JSON.stringify(item)}</code>
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'number' && isDuration(option)) return <code>{durationText(value / 1e6)}</code>;
  if (typeof value === 'object') return <code>{JSON.stringify(value)}</code>;
  return <code>{String(value)}</code>;
}

/** The wire has no option kinds: a duration is told by its default, written as Go writes durations. */
function isDuration(option: DeploymentOption): boolean {
  return /^(\d+(\.\d+)?(h|m|s|ms|µs|us|ns))+$/.test(option.default ?? '');
}

function durationText(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join(' ');
}

function groupId(group: string): string {
  return `group-${group.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** The options to show, in their groups in the server's order; hidden ones are left out, as `--help` does. */
function groupOptions(options: readonly DeploymentOption[], query: string, changedOnly: boolean): [string, DeploymentOption[]][] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const groups = new Map<string, DeploymentOption[]>();
  for (const option of options) {
    if (option.hidden) continue;
    if (changedOnly && (option.value_source === 'default' || option.value_source === '')) continue;
    const text = [option.name, option.flag, option.env, option.yaml ?? '', option.description, option.group.name].join(' ').toLowerCase();
    if (!words.every((word) => text.includes(word))) continue;
    const group = option.group.name || 'Other';
    groups.set(group, [...(groups.get(group) ?? []), option]);
  }
  return [...groups];
}
