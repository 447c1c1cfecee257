// How the dashboard looks to the user: the theme (the header's switcher makes the same choice) and
// the web terminal's font, both kept with the account (`PUT /users/me/appearance`).
import type { UserAppearanceSettings } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { ActionStatus, Loading, useAction, useLoad } from '../components/feedback.js';
import { useThemeChoice } from '../components/theme-switcher.js';
import { THEMES } from '../theme.js';
import { SettingsHeader } from './settings-header.js';

/** The fonts the API accepts for the terminal, by its names; the empty name is the system's monospace font. */
const FONTS: readonly { value: string; label: string }[] = [
  { value: '', label: 'System monospace' },
  { value: 'ibm-plex-mono', label: 'IBM Plex Mono' },
  { value: 'fira-code', label: 'Fira Code' },
  { value: 'source-code-pro', label: 'Source Code Pro' },
  { value: 'jetbrains-mono', label: 'JetBrains Mono' },
];

/** What each theme does, under its name. */
const THEME_DESCRIPTIONS: Readonly<Record<(typeof THEMES)[number]['value'], string>> = {
  auto: 'Light or dark, as your system is set.',
  light: 'Dark text on a light background.',
  dark: 'Light text on a dark background.',
};

export function SettingsAppearancePage() {
  const { theme, state: themeState, choose } = useThemeChoice();
  const settings = useLoad(() => api<UserAppearanceSettings>('GET', '/users/me/appearance'), []);
  const [fontState, chooseFont] = useAction(async (font: string) => {
    // The theme goes along: the API takes both together.
    const answer = await api<UserAppearanceSettings>('PUT', '/users/me/appearance', {
      body: { theme_preference: theme, terminal_font: font },
    });
    settings.setData(answer);
    return `Terminal font: ${fontLabel(answer.terminal_font)}.`;
  });
  return (
    <section className="page">
      <SettingsHeader title="Appearance">How the dashboard and its terminal look to you, in every browser you sign in from.</SettingsHeader>
      <div className="card form settings-form">
        <fieldset className="field">
          <legend className="field-label">Theme</legend>
          <div className="options">
            {THEMES.map((option) => (
              <label key={option.value} className={option.value === theme ? 'option option-selected' : 'option'}>
                <input
                  type="radio"
                  name="theme"
                  value={option.value}
                  checked={option.value === theme}
                  disabled={themeState.state === 'pending'}
                  onChange={() => void choose(option.value)}
                  aria-labelledby={`theme-${option.value}-name`}
                  aria-describedby={`theme-${option.value}-description`}
                />
                <span>
                  <span id={`theme-${option.value}-name`} className="option-name">
                    {option.label}
                  </span>
                  <span id={`theme-${option.value}-description`} className="option-description">
                    {THEME_DESCRIPTIONS[option.value]}
                  </span>
                </span>
              </label>
            ))}
          </div>
          <ActionStatus state={themeState} pending="Saving…" />
        </fieldset>
        <div className="field">
          <label className="field-label" htmlFor="terminal-font">
            Terminal font
          </label>
          {settings.data ? (
            <select
              id="terminal-font"
              value={settings.data.terminal_font}
              disabled={fontState.state === 'pending'}
              onChange={(event) => void chooseFont(event.target.value)}
              aria-describedby="terminal-font-hint"
            >
              {FONTS.map((font) => (
                <option key={font.value} value={font.value}>
                  {font.label}
                </option>
              ))}
            </select>
          ) : (
            <Loading error={settings.error} />
          )}
          <p id="terminal-font-hint" className="field-hint">
            Used by the web terminal when this browser has the font installed; otherwise the system monospace font stands in.
          </p>
          <ActionStatus state={fontState} pending="Saving…" />
        </div>
      </div>
    </section>
  );
}

function fontLabel(font: string): string {
  return FONTS.find((option) => option.value === font)?.label ?? font;
}
