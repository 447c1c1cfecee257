import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The appearance section of `--help` and of the YAML file. */
export const APPEARANCE_GROUP: OptionGroup = {
  name: 'Appearance',
  yaml: 'appearance',
  description: 'How the dashboard names and presents the deployment.',
};

/** What the appearance options resolve to. */
export interface AppearanceValues {
  readonly applicationName: string;
  readonly logoUrl: string;
  readonly docsUrl: string;
  readonly supportLinks: string;
}

/**
 * The appearance options, in `--help` order. The name and logo are defaults: what an owner sets
 * with `PUT /appearance` wins over them. Support links and the documentation URL come from here only.
 */
export const APPEARANCE_OPTIONS: readonly OptionDefinition<keyof AppearanceValues>[] = [
  {
    key: 'applicationName',
    name: 'Application Name',
    flag: 'application-name',
    env: 'COVE_APPLICATION_NAME',
    yaml: 'application_name',
    group: APPEARANCE_GROUP,
    configPath: ['application_name'],
    kind: 'string',
    default: '',
    description: 'The name the dashboard shows for the deployment, until an owner sets one with `PUT /appearance`.',
  },
  {
    key: 'logoUrl',
    name: 'Logo URL',
    flag: 'logo-url',
    env: 'COVE_LOGO_URL',
    yaml: 'logo_url',
    group: APPEARANCE_GROUP,
    configPath: ['logo_url'],
    kind: 'string',
    default: '',
    description: 'The logo the dashboard shows, until an owner sets one with `PUT /appearance`.',
  },
  {
    key: 'docsUrl',
    name: 'Documentation URL',
    flag: 'docs-url',
    env: 'COVE_DOCS_URL',
    yaml: 'docs_url',
    group: APPEARANCE_GROUP,
    configPath: ['docs_url'],
    kind: 'string',
    default: '',
    description: 'Where the dashboard links for documentation; the first support link when none are set.',
  },
  {
    key: 'supportLinks',
    name: 'Support Links',
    flag: 'support-links',
    env: 'COVE_SUPPORT_LINKS',
    yaml: 'support_links',
    group: APPEARANCE_GROUP,
    configPath: ['support', 'links'],
    kind: 'string',
    default: '',
    description:
      'The links of the dashboard\'s help menu, as a JSON array of `{"name", "target", "icon"}` objects ' +
      '(`icon`: `bug`, `chat`, `docs`, `star` or an image URL; optional `location`: `navbar` or `dropdown`).',
  },
];
