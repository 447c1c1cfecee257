// The help menu of the header: the deployment's support links, opening in a new
// tab. Links placed in the navbar (`location: navbar`) show beside it instead.
import { useEffect, useRef } from 'react';
import type { LinkConfig } from '../../sdk/wire/index.js';
import { useAppearance } from '../appearance.js';
import { supportLinks } from '../support-links.js';
import { SupportIcon } from './support-icon.js';

export function HelpMenu() {
  const links = supportLinks(useAppearance());
  const menu = useRef<HTMLDetailsElement>(null);
  // Closes on a click elsewhere or Escape, as menus do.
  useEffect(() => {
    const close = (event: Event) => {
      const details = menu.current;
      if (!details?.open) return;
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('click', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('click', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
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
          <ul className="help-menu-list" aria-label="Help">
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
