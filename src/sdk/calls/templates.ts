import { ClientCore } from '../client-core.js';
import type { Response, CreateTemplateRequest, Template, TemplateExample, TemplateVersion, UpdateTemplateMeta } from '../wire/index.js';

/**
 * Templates, and their versions as seen from the template.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class TemplatesCalls extends ClientCore {
  templateExamples(): Promise<TemplateExample[]> {
    return this.request('GET', '/templates/examples');
  }

  createTemplate(organization: string, request: CreateTemplateRequest): Promise<Template> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/templates`, { body: request });
  }

  /** Templates the caller can see, across organizations; `q` as the search syntax takes it. */
  templates(q?: string): Promise<Template[]> {
    return this.request('GET', '/templates', { query: { q } });
  }

  organizationTemplates(organization: string, q?: string): Promise<Template[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/templates`, { query: { q } });
  }

  template(id: string): Promise<Template> {
    return this.request('GET', `/templates/${encodeURIComponent(id)}`);
  }

  templateByName(organization: string, name: string): Promise<Template> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/templates/${encodeURIComponent(name)}`);
  }

  /** Updates template metadata; resolves undefined when nothing changed (304). */
  async updateTemplate(id: string, request: UpdateTemplateMeta): Promise<Template | undefined> {
    return this.request('PATCH', `/templates/${encodeURIComponent(id)}`, { body: request });
  }

  deleteTemplate(id: string): Promise<Response> {
    return this.request('DELETE', `/templates/${encodeURIComponent(id)}`);
  }

  templateVersions(
    templateId: string,
    query: { readonly include_archived?: boolean; readonly limit?: number; readonly offset?: number; readonly after_id?: string } = {},
  ): Promise<TemplateVersion[]> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/versions`, { query });
  }

  templateVersionByName(templateId: string, name: string): Promise<TemplateVersion> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/versions/${encodeURIComponent(name)}`);
  }

  /** Makes a successfully imported version the template's active one. */
  promoteTemplateVersion(templateId: string, versionId: string): Promise<Response> {
    return this.request('PATCH', `/templates/${encodeURIComponent(templateId)}/versions`, { body: { id: versionId } });
  }

  archiveTemplateVersions(templateId: string, all = false): Promise<{ template_id: string; archived_ids: string[] }> {
    return this.request('POST', `/templates/${encodeURIComponent(templateId)}/versions/archive`, { body: { all } });
  }
}
