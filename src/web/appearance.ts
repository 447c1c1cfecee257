// The deployment's appearance (`GET /appearance`): its name, logo, banners and help links, shared
// with every page. The name and logo are remembered in this browser, for the sign-in page, which
// has no session to ask the API with.
import { createContext, useContext } from 'react';
import type { AppearanceConfig } from '../sdk/wire/index.js';
import { api } from './api.js';

/** The name shown when the deployment has none of its own. */
export const DEFAULT_APPLICATION_NAME = 'Cove';

/** What a deployment that set nothing looks like. */
export const NO_APPEARANCE: AppearanceConfig = {
  application_name: '',
  logo_url: '',
  docs_url: '',
  service_banner: { enabled: false },
  announcement_banners: [],
};

const STORAGE_KEY = 'cove:appearance';

export const AppearanceContext = createContext<AppearanceConfig>(NO_APPEARANCE);

/** The deployment's appearance, as last loaded. */
export function useAppearance(): AppearanceConfig {
  return useContext(AppearanceContext);
}

/** The name the dashboard calls the deployment by. */
export function applicationName(appearance: AppearanceConfig): string {
  return appearance.application_name.trim() || DEFAULT_APPLICATION_NAME;
}

/**
 * Reads the appearance from the API and remembers its name and logo. Signed out (or on any
 * failure) the remembered ones stand in: the page is usable without them.
 */
export async function loadAppearance(): Promise<AppearanceConfig> {
  try {
    const appearance = await api<AppearanceConfig>('GET', '/appearance', { signedOutOk: true });
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ application_name: appearance.application_name, logo_url: appearance.logo_url }));
    } catch {
      // No storage: the sign-in page then shows the default name.
    }
    return appearance;
  } catch {
    return rememberedAppearance();
  }
}

/** The name and logo this browser saw last, on an appearance with nothing else. */
export function rememberedAppearance(): AppearanceConfig {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<Record<'application_name' | 'logo_url', unknown>>;
    return {
      ...NO_APPEARANCE,
      application_name: typeof stored.application_name === 'string' ? stored.application_name : '',
      logo_url: typeof stored.logo_url === 'string' ? stored.logo_url : '',
    };
  } catch {
    return NO_APPEARANCE;
  }
}
