import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { CreateTemplateRequest, Template, TemplateVersion } from '../../src/sdk/wire/index.js';

/**
 * Imports an echo-provisioner template (`echo` as `echo.json`, a string as it is, else as JSON)
 * in the default organization, waits for the import, and makes the template `name` from it.
 */
export async function createEchoTemplate(
  owner: CoveClient,
  name: string,
  echo: unknown,
  options: { readonly settings?: Partial<CreateTemplateRequest>; readonly files?: Readonly<Record<string, string>> } = {},
): Promise<{ readonly template: Template; readonly version: TemplateVersion }> {
  const text = typeof echo === 'string' ? echo : JSON.stringify(echo);
  const { id } = await owner.uploadFile(await createTar({ 'echo.json': text, ...options.files }));
  const version = await owner.createTemplateVersion('default', { file_id: id });
  await owner.followTemplateVersionLogs(version.id, () => undefined);
  const template = await owner.createTemplate('default', { name, template_version_id: version.id, ...options.settings });
  return { template, version };
}
