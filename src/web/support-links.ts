// The links of the help menu: the deployment's own (`--support-links`), or, when it names none, the
// documentation link the daemon makes from `--docs-url`. Cove has no public home of its own to
// send users to, so with neither configured the menu is not shown.
import type { AppearanceConfig, LinkConfig } from '../sdk/wire/index.js';

/** The help menu's links for this deployment, in order. */
export function supportLinks(appearance: AppearanceConfig): readonly LinkConfig[] {
  return appearance.support_links ?? [];
}
