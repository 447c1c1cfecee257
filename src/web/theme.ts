// The user's theme: `dark`, `light` or `auto` (follow the system), set as `data-theme` on <html>,
// which styles.css reads. The last one applied is remembered in this browser, so that the next
// visit paints in it before the API has answered.

/** The themes a user can choose, as the API names them. */
export const THEMES = [
  { value: 'auto', label: 'Auto' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
] as const;

export type Theme = (typeof THEMES)[number]['value'];

const STORAGE_KEY = 'cove:theme';

/** The theme a stored preference stands for: an empty or unknown one follows the system. */
export function themeOf(preference: string | null | undefined): Theme {
  return preference === 'light' || preference === 'dark' ? preference : 'auto';
}

/** Shows the page in `preference` and remembers it for the next visit. */
export function applyTheme(preference: string | null | undefined): void {
  const theme = themeOf(preference);
  document.documentElement.dataset['theme'] = theme;
  try {
    localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // Storage may be off (private mode, policy): the theme then applies once the API answers.
  }
}

/** Shows the page in the theme this browser last used, before anything is loaded. */
export function applyRememberedTheme(): void {
  let remembered: string | null = null;
  try {
    remembered = localStorage.getItem(STORAGE_KEY);
  } catch {
    // As above: no storage, no remembered theme.
  }
  document.documentElement.dataset['theme'] = themeOf(remembered);
}
