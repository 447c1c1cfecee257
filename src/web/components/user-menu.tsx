// The header's menu of the signed-in user: their settings pages and signing out, behind a button
// showing who is signed in. It follows the menu-button pattern of WAI-ARIA: the button opens it,
// arrows move between its items, Escape closes it and gives focus back to the button.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { navigate } from '../router.js';
import { useSession } from '../session.js';

/** Where the menu leads, in the order it lists them. */
export const USER_MENU_LINKS: readonly { href: string; label: string }[] = [
  { href: '/settings/account', label: 'Account' },
  { href: '/settings/security', label: 'Security' },
  { href: '/settings/appearance', label: 'Appearance' },
  { href: '/settings/tokens', label: 'Tokens' },
  { href: '/settings/ssh-keys', label: 'SSH keys' },
  { href: '/settings/schedule', label: 'Schedule' },
  { href: '/settings/notifications', label: 'Notifications' },
  { href: '/settings/external-auth', label: 'External auth' },
];

export function UserMenu({ onSignOut, signingOut }: { onSignOut: () => void; signingOut: boolean }) {
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  // Which item takes focus once the menu is drawn: the first, or the last (opened with ArrowUp).
  const [focusOnOpen, setFocusOnOpen] = useState<'first' | 'last'>('first');
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const menuId = useId();

  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const list = items();
    (focusOnOpen === 'first' ? list[0] : list[list.length - 1])?.focus();
    // A click anywhere else closes the menu, and leaves focus where the click put it.
    const outside = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open, focusOnOpen]);

  const openWith = (focus: 'first' | 'last') => {
    setFocusOnOpen(focus);
    setOpen(true);
  };

  const onButtonKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openWith(event.key === 'ArrowDown' ? 'first' : 'last');
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      close(true);
    }
  };

  const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => list[(index + list.length) % list.length]?.focus();
    switch (event.key) {
      case 'ArrowDown':
        move(at + 1);
        break;
      case 'ArrowUp':
        move(at < 0 ? -1 : at - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(-1);
        break;
      case ' ':
        // Links answer Enter alone; a menu's items answer Space too.
        list[at]?.click();
        break;
      case 'Escape':
        // Stopped here, so that a page's own Escape handling (a dialog, a confirmation) is left alone.
        event.stopPropagation();
        close(true);
        break;
      case 'Tab':
        close(false);
        return;
      default:
        return;
    }
    event.preventDefault();
  };

  const initial = (user.name || user.username).trim().charAt(0).toUpperCase();
  return (
    <div className="account-menu">
      <button
        ref={button}
        type="button"
        className="account-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        title={user.email}
        onClick={() => (open ? close(false) : openWith('first'))}
        onKeyDown={onButtonKey}
      >
        {user.avatar_url ? (
          <img className="account-avatar" src={user.avatar_url} alt="" width={24} height={24} />
        ) : (
          <span className="account-avatar account-initial" aria-hidden="true">
            {initial}
          </span>
        )}
        <span className="user-name">{user.username}</span>
        <span className="account-menu-caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <ul
          ref={menu}
          id={menuId}
          className="menu-panel account-menu-list"
          role="menu"
          aria-label={`Account of ${user.username}`}
          onKeyDown={onMenuKey}
        >
          {USER_MENU_LINKS.map((link) => (
            <li key={link.href} role="none">
              <a
                role="menuitem"
                tabIndex={-1}
                className="account-menu-item"
                href={link.href}
                onClick={(event) => {
                  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
                  event.preventDefault();
                  setOpen(false);
                  navigate(link.href);
                }}
              >
                {link.label}
              </a>
            </li>
          ))}
          <li role="separator" className="account-menu-separator" />
          <li role="none">
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              className="account-menu-item"
              disabled={signingOut}
              onClick={() => {
                setOpen(false);
                onSignOut();
              }}
            >
              Sign out
            </button>
          </li>
        </ul>
      )}
    </div>
  );
}
