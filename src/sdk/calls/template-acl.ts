import { ClientCore } from '../client-core.js';
import type { ACLAvailable, Response, TemplateACL, UpdateTemplateACL } from '../wire/index.js';

/**
 * Template permissions: the users and groups a template's ACL names.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class TemplateAclCalls extends ClientCore {
  templateAcl(templateId: string): Promise<TemplateACL> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/acl`);
  }

  /** Sets roles by user and group id; the role `""` removes an entry. */
  updateTemplateAcl(templateId: string, request: UpdateTemplateACL): Promise<Response> {
    return this.request('PATCH', `/templates/${encodeURIComponent(templateId)}/acl`, { body: request });
  }

  /** The users and groups the template's ACL could name (for those who may change it): a page of users matching `q`, and every group. */
  templateAclAvailable(
    templateId: string,
    query: { readonly q?: string; readonly limit?: number; readonly offset?: number } = {},
  ): Promise<ACLAvailable> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/acl/available`, { query });
  }
}
