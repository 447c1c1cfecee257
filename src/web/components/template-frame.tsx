// What every page of one template shares: loading it by name, its header, and the tabs between its
// pages (summary, versions, settings, insights, permissions).
import type { ReactNode } from 'react';
import type { Template } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';
import { Loading, useLoad } from './feedback.js';
import { SectionTabs } from './section-tabs.js';
import { Icon } from './status.js';

/** The path of a template's page: `templatePath('docker', 'settings')` is `/templates/docker/settings`. */
export function templatePath(name: string, tab?: string): string {
  return `/templates/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`;
}

/** The organization the dashboard creates and finds templates in: the user's first. */
export function useOrganization(): string {
  const { user } = useSession();
  return user.organization_ids[0] ?? 'default';
}

/**
 * A template by its name in the user's organization (which finds deprecated templates too), and
 * `setData` for a page that has the template as the server answered a change.
 */
export function useTemplate(name: string) {
  const organization = useOrganization();
  return useLoad(
    () => api<Template>('GET', `/organizations/${encodeURIComponent(organization)}/templates/${encodeURIComponent(name)}`),
    [organization, name],
  );
}

/** A template page while its template loads, or why it could not. */
export function TemplateLoading({ name, error }: { name: string; error: unknown }) {
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / {name}
      </p>
      <Loading error={error} />
    </section>
  );
}

/** The header and tabs of a template's pages, around the page's own content. */
export function TemplateFrame({ template, children }: { template: Template; children: ReactNode }) {
  const name = template.name;
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / {name}
      </p>
      <div className="page-header">
        <div className="template-summary">
          <Icon src={template.icon} size={40} />
          <div>
            <h1>{template.display_name || name}</h1>
            <p className="muted">{template.description || 'No description.'}</p>
          </div>
        </div>
        <div className="header-actions">
          <Link href={`${templatePath(name)}/workspace`} className="button button-primary">
            Create workspace
          </Link>
        </div>
      </div>
      <SectionTabs
        label="Template"
        tabs={[
          { href: templatePath(name), label: 'Summary' },
          { href: templatePath(name, 'versions'), label: 'Versions' },
          { href: templatePath(name, 'settings'), label: 'Settings' },
          { href: templatePath(name, 'insights'), label: 'Insights' },
          { href: templatePath(name, 'permissions'), label: 'Permissions' },
        ]}
      />
      {template.deprecated && (
        <div className="notice notice-warn">
          <strong>Deprecated.</strong> {template.deprecation_message}
        </div>
      )}
      {children}
    </section>
  );
}
