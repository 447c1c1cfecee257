// The help menu of the header: the deployment's support links, opening in a new
// tab. Links placed in the navbar (`location: navbar`) show beside it instead.
import type { LinkConfig } from '../../sdk/wire/index.js';
import { useAppearance } from '../appearance.js';
import { supportLinks } from '../support-links.js';
import { SupportIcon } from './support-icon.js';
import { useDismissedMenu } from './dismissed-menu.js';

export function HelpMenu() {
  const links = supportLinks(useAppearance());
  const menu = useDismissedMenu();
  const inNavbar = links.filter((link) => link.location === 'navbar');
  const inMenu = links.filter((link) => link.location !== 'navbar');
  return (
    <>
      {inNavbar.map((link) => (
        <SupportLink key={link.name + link.target} link={link} className="nav-link support-link" />
      ))}
      {inMenu.length > 0 && (
        <details className="help-menu" ref={menu}>
          <summary className="button button-quiet">Help</summary>
          <ul className="menu-panel help-menu-list" aria-label="Help">
            {inMenu.map((link) => (
              <li key={link.name + link.target}>
                <SupportLink link={link} className="help-menu-link" />
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function SupportLink({ link, className }: { link: LinkConfig; className: string }) {
  return (
    <a className={className} href={safeHref(link.target)} target="_blank" rel="noreferrer">
      <SupportIcon icon={link.icon} />
      {link.name}
    </a>
  );
}

/** A link's target if it is a web or mail address (or a path here); a `javascript:` one would run in the page. */
function safeHref(target: string): string {
  try {
    const url = new URL(target, location.origin);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? target : '#';
  } catch {
    return '#';
  }
}
