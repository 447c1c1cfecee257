// The deployment's banners across the top of every page: the service banner, then each enabled
// announcement. The message is text, never markup: an owner's `<img onerror=…>` shows as written.
import type { BannerConfig } from '../../sdk/wire/index.js';
import { useAppearance } from '../appearance.js';

export function Banners() {
  const { service_banner: service, announcement_banners: announcements } = useAppearance();
  const shown = [
    ...(service.enabled ? [{ banner: service, kind: 'service' }] : []),
    ...announcements.filter((banner) => banner.enabled).map((banner) => ({ banner, kind: 'announcement' })),
  ];
  if (shown.length === 0) return null;
  return (
    <div className="banners">
      {shown.map(({ banner, kind }, index) => (
        <Banner key={`${kind}-${index}`} banner={banner} kind={kind} />
      ))}
    </div>
  );
}

function Banner({ banner, kind }: { banner: BannerConfig; kind: string }) {
  const background = /^#[0-9a-f]{6}$/i.test(banner.background_color ?? '') ? banner.background_color : undefined;
  // Set through the DOM's style object, which the Content-Security-Policy allows (an inline style attribute it would not).
  const style = background ? { backgroundColor: background, color: readableOn(background) } : undefined;
  return (
    <div className={`banner banner-${kind}`} role="status" style={style}>
      {banner.message ?? ''}
    </div>
  );
}

/** Black or white, whichever reads better on `#rrggbb` (WCAG contrast of relative luminance). */
export function readableOn(background: string): string {
  const channel = (offset: number) => {
    const value = parseInt(background.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05): equal where L is about 0.179.
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}
