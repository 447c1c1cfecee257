// The theme control of the header: saves the user's choice with `PUT /users/me/appearance` and
// shows it at once. The appearance settings page offers the same choice through `useThemeChoice`.
import { useState } from 'react';
import type { UserAppearanceSettings } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { applyTheme, THEMES, themeOf } from '../theme.js';
import { ActionStatus, useAction, type ActionState } from './feedback.js';

/**
 * The user's theme as shown (the one being saved, while it is), and a way to choose another: shown
 * at once, saved, and put back if the server refuses it.
 */
export function useThemeChoice(): { theme: string; state: ActionState; choose: (theme: string) => Promise<void> } {
  const { user, refresh } = useSession();
  // The choice being saved, shown until the session's user carries it.
  const [chosen, setChosen] = useState<string>();
  const [state, choose] = useAction(async (theme: string) => {
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
  return { theme: chosen ?? themeOf(user.theme_preference), state, choose };
}

export function ThemeSwitcher() {
  const { theme, state, choose } = useThemeChoice();
  return (
    <label className="theme-switcher">
      <span className="visually-hidden">Theme</span>
      <select value={theme} onChange={(event) => void choose(event.target.value)} disabled={state.state === 'pending'}>
        {THEMES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {state.state === 'error' && <ActionStatus state={state} />}
    </label>
  );
}
