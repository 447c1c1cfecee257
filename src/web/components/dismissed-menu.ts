// A header menu (`<details>`) that closes on a click elsewhere or on Escape, as menus do.
import { useEffect, useRef, type RefObject } from 'react';

/** A ref for the menu's `<details>`, which closes it on a click outside it or on Escape. */
export function useDismissedMenu(): RefObject<HTMLDetailsElement | null> {
  const menu = useRef<HTMLDetailsElement>(null);
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
  return menu;
}
