// The links of the help menu: the deployment's own (`--support-links`), else the defaults the
// reference's dashboard shows (documentation, report a bug, the community) with Cove's targets.
import type { AppearanceConfig, LinkConfig } from '../sdk/wire/index.js';

/** Where Cove's project lives: its documentation, issues and discussions. */
export const PROJECT_URL = 'https://github.com/cove-dev/cove';

/** The help menu's links for this deployment, in order. */
export function supportLinks(appearance: AppearanceConfig): LinkConfig[] {
  if (appearance.support_links && appearance.support_links.length > 0) return appearance.support_links;
  return [
    { name: 'Documentation', target: appearance.docs_url || `${PROJECT_URL}/tree/main/docs`, icon: 'docs' },
    { name: 'Report a bug', target: `${PROJECT_URL}/issues/new`, icon: 'bug' },
    { name: 'Join the community', target: `${PROJECT_URL}/discussions`, icon: 'chat' },
  ];
}

/** The glyphs of the built-in icon names; any other icon is an image URL. */
export const BUILT_IN_ICONS: Readonly<Record<string, string>> = { bug: '🐞', chat: '💬', docs: '📖', star: '★' };
