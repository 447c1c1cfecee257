// The icons of the support links: the built-in names (`bug`, `chat`, `docs`, `star`) drawn here, as
// the reference names them, and any other value an image URL.

/** The outlines of the built-in icons, on a 16-unit square. */
const BUILT_IN: Readonly<Record<string, string>> = {
  docs: 'M2 3.5h4a2 2 0 0 1 2 2V13a1.5 1.5 0 0 0-1.5-1.5H2zM14 3.5h-4a2 2 0 0 0-2 2V13a1.5 1.5 0 0 1 1.5-1.5H14z',
  bug: 'M5.5 6h5v4a2.5 2.5 0 0 1-5 0zM6 6a2 2 0 0 1 4 0M3 7.5h2.5M10.5 7.5H13M3 11h2.7M10.3 11H13M8 6v6.5',
  chat: 'M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z',
  star: 'M8 2l1.8 3.9 4.2.4-3.2 2.8 1 4.1L8 11.1l-3.8 2.1 1-4.1L2 6.3l4.2-.4z',
};

export function SupportIcon({ icon }: { icon: string }) {
  const path = Object.hasOwn(BUILT_IN, icon) ? BUILT_IN[icon] : undefined;
  if (path !== undefined) {
    return (
      <svg className="support-icon" viewBox="0 0 16 16" aria-hidden="true">
        <path d={path} />
      </svg>
    );
  }
  return icon === '' ? null : <img className="support-icon" src={icon} alt="" />;
}
