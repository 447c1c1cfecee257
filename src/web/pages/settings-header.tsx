// The top of each of the user's settings pages: the tabs between them, the page's name and what it is for.
import type { ReactNode } from 'react';
import { ACCOUNT_TABS, SectionTabs } from '../components/section-tabs.js';

export function SettingsHeader({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <SectionTabs label="Account settings" tabs={ACCOUNT_TABS} />
      <div className="page-header">
        <div>
          <h1>{title}</h1>
          <p className="muted">{children}</p>
        </div>
      </div>
    </>
  );
}
