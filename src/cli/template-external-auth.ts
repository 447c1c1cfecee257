import type { CoveClient } from '../sdk/client.js';
import type { TemplateVersionExternalAuth } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';
import type { CommandContext } from './command.js';

/** How often the providers are asked again while the user links them in a browser. */
const POLL_MS = 1000;

/**
 * Makes sure the caller linked every provider template version `versionId` requires, before a
 * workspace is made of it (its git would fail otherwise). Unlinked ones are named with their link
 * page; when `wait`, cove waits until they are all linked, as the reference's `create` does;
 * otherwise it fails naming them. Optional providers are only mentioned.
 */
export async function requireTemplateExternalAuth(
  context: CommandContext,
  client: CoveClient,
  versionId: string,
  wait: boolean,
): Promise<void> {
  let providers = await client.templateVersionExternalAuth(versionId);
  for (const optional of providers.filter((p) => p.optional && !p.authenticated)) {
    context.io.stderr.write(
      `The template can use your ${optional.display_name} account (optional): link it at ${optional.authenticate_url}\n`,
    );
  }
  let missing = unlinked(providers);
  if (missing.length === 0) return;
  for (const provider of missing) {
    context.io.stderr.write(
      `You must link your ${provider.display_name} account to create a workspace from this template: ${provider.authenticate_url}\n`,
    );
  }
  if (!wait) {
    throw new CliError(
      `Link ${missing.map((p) => p.id).join(', ')} first: the template requires ${missing.length === 1 ? 'it' : 'them'}.`,
      {
        hint: missing.map((p) => `cove external-auth link ${p.id}`).join('; '),
      },
    );
  }
  context.io.stderr.write('Waiting for you to link them (Ctrl+C to give up)...\n');
  while (missing.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (context.io.interrupt?.aborted) throw new CliError('Interrupted before the providers were linked; nothing was created.');
    providers = await client.templateVersionExternalAuth(versionId);
    const still = unlinked(providers);
    for (const done of missing.filter((p) => !still.some((s) => s.id === p.id))) context.io.stderr.write(`Linked ${done.display_name}.\n`);
    missing = still;
  }
}

function unlinked(providers: readonly TemplateVersionExternalAuth[]): TemplateVersionExternalAuth[] {
  return providers.filter((p) => !p.optional && !p.authenticated);
}
