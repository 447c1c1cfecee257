import { readdir } from 'node:fs/promises';

/** The provisioners a template directory can be for. */
export type ProvisionerKind = 'native' | 'echo' | 'terraform';

/**
 * Picks the provisioner for a template directory from the files at its top: `template.yaml` →
 * native, `echo.json` → echo, any `*.tf` → terraform, in that order of preference; null when
 * none is there. A missing directory is an error, not null.
 */
export async function detectProvisioner(directory: string): Promise<ProvisionerKind | null> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
  if (files.has('template.yaml')) return 'native';
  if (files.has('echo.json')) return 'echo';
  if ([...files].some((name) => name.endsWith('.tf'))) return 'terraform';
  return null;
}
