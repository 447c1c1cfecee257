// The theme control of the header: saves the user's choice with `PUT /users/me/appearance` and
// shows it at once. The account settings page, with the terminal font, is elsewhere.
import { useState } from 'react';
import type { UserAppearanceSettings } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { applyTheme, THEMES, themeOf } from '../theme.js';
import { ActionStatus, useAction } from './feedback.js';

export function ThemeSwitcher() {
  const { user, refresh } = useSession();
  // The choice being saved, shown until the session's user carries it.
  const [chosen, setChosen] = useState<string>();
  const [state, save] = useAction(async (theme: string) => {
    const previous = themeOf(user.theme_preference);
    setChosen(theme);
    applyTheme(theme);
    try {
      await api<UserAppearanceSettings>('PUT', '/users/me/appearance', { body: { theme_preference: theme } });
      // The session's user carries the theme too; read again, so every page agrees.
      await refresh();
    } catch (error) {
      applyTheme(previous);
      throw error;
    } finally {
      setChosen(undefined);
    }
    return 'Saved.';
  });
  return (
    <label className="theme-switcher">
      <span className="visually-hidden">Theme</span>
      <select
        value={chosen ?? themeOf(user.theme_preference)}
        onChange={(event) => void save(event.target.value)}
        disabled={state.state === 'pending'}
      >
        {THEMES.map((theme) => (
          <option key={theme.value} value={theme.value}>
            {theme.label}
          </option>
        ))}
      </select>
      {state.state === 'error' && <ActionStatus state={state} />}
    </label>
  );
}
