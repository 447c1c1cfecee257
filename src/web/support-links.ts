// The links of the help menu: the deployment's own (`--support-links`), else the defaults the
// reference's dashboard shows (documentation, report a bug, the community) with Cove's targets.
import type { AppearanceConfig, LinkConfig } from '../sdk/wire/index.js';

/** Where Cove's project lives: its documentation, issues and discussions. */
export const PROJECT_URL = 'https://github.com/cove-dev/cove';

/** The help menu's links for this deployment, in order. */
export function supportLinks(appearance: AppearanceConfig): LinkConfig[] {
  const links = appearance.support_links ?? [];
  if (links.length > 0 && !isDocsFallback(links, appearance.docs_url)) return links;
  return [
    { name: 'Documentation', target: appearance.docs_url || `${PROJECT_URL}/tree/main/docs`, icon: 'docs' },
    { name: 'Report a bug', target: `${PROJECT_URL}/issues/new`, icon: 'bug' },
    { name: 'Join the community', target: `${PROJECT_URL}/discussions`, icon: 'chat' },
  ];
}

/**
 * Whether the links are the daemon's stand-in for none configured: the documentation link alone,
 * made from `--docs-url`. The dashboard then shows all of its defaults, with that link first.
 */
function isDocsFallback(links: readonly LinkConfig[], docsUrl: string): boolean {
  const [link] = links;
  return (
    links.length === 1 &&
    link !== undefined &&
    docsUrl !== '' &&
    link.name === 'Documentation' &&
    link.target === docsUrl &&
    link.icon === 'docs' &&
    link.location === undefined
  );
}
