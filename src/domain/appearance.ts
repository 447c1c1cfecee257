import type { AppearanceConfig, BannerConfig, LinkConfig, UpdateAppearanceConfig } from '../sdk/wire/index.js';
import type { AppearanceValues } from './options/appearance.js';

/** A banner that shows nothing: what the reference sends when no banner was set. */
const NO_BANNER: BannerConfig = { enabled: false };

/**
 * The support links of `--support-links` (a JSON array), or when none are set a link to the
 * documentation if there is one. Throws on text that is not such an array, for `cove serve` to refuse.
 */
export function parseSupportLinks(values: Pick<AppearanceValues, 'supportLinks' | 'docsUrl'>): LinkConfig[] {
  if (values.supportLinks.trim() === '') {
    return values.docsUrl === '' ? [] : [{ name: 'Documentation', target: values.docsUrl, icon: 'docs' }];
  }
  const parsed: unknown = JSON.parse(values.supportLinks);
  if (!Array.isArray(parsed)) throw new Error('support links must be a JSON array');
  return parsed.map((item: unknown, index) => {
    const link = item as Partial<Record<keyof LinkConfig, unknown>> | null;
    if (!link || typeof link.name !== 'string' || typeof link.target !== 'string') {
      throw new Error(`support link ${index + 1} needs a "name" and a "target"`);
    }
    const icon = typeof link.icon === 'string' ? link.icon : '';
    const location = link.location === 'navbar' || link.location === 'dropdown' ? link.location : undefined;
    return { name: link.name, target: link.target, icon, ...(location ? { location } : {}) };
  });
}

/**
 * The deployment's appearance: what an owner stored through the API wins over the server options,
 * field by field as the reference keeps each in its own setting (an empty name falls back).
 */
export function resolveAppearance(values: AppearanceValues, stored: string | undefined): AppearanceConfig {
  const set: Partial<UpdateAppearanceConfig> = stored === undefined ? {} : (JSON.parse(stored) as UpdateAppearanceConfig);
  const supportLinks = safeSupportLinks(values);
  return {
    application_name: set.application_name || values.applicationName,
    logo_url: set.logo_url || values.logoUrl,
    docs_url: values.docsUrl,
    service_banner: set.service_banner ?? NO_BANNER,
    announcement_banners: set.announcement_banners ?? [],
    ...(supportLinks.length > 0 ? { support_links: supportLinks } : {}),
  };
}

// `cove serve` checks the option at start-up; a value that slipped past shows no links rather than failing every page.
function safeSupportLinks(values: AppearanceValues): LinkConfig[] {
  try {
    return parseSupportLinks(values);
  } catch {
    return [];
  }
}

/** Why a banner cannot be stored, or undefined: an enabled banner needs a `#rrggbb` color, as the reference asks. */
export function bannerProblem(banner: BannerConfig): string | undefined {
  if (!banner.enabled) return undefined;
  if (!/^#[0-9a-fA-F]{6}$/.test(banner.background_color ?? '')) return `Invalid color format: "${banner.background_color ?? ''}".`;
  return undefined;
}
