import { StoreFamily } from './store-family.js';
import { siteObject } from '../../rbac/index.js';
import * as siteConfig from '../queries/site-config.js';

/** The site setting the dashboard's appearance set through the API is kept under, as JSON. */
const APPEARANCE_KEY = 'appearance';

/** The deployment's appearance as set through the API (application name, logo, banners), as JSON text. */
export class AppearanceStore extends StoreFamily {
  /**
   * The stored appearance, or undefined when none was set. Every signed-in user may read it, as
   * every page of the dashboard shows it; other subjects need read on the deployment config.
   */
  async get(): Promise<string | undefined> {
    if (this.subject.type !== 'user') this.require('read', siteObject('deployment_config'));
    return siteConfig.getSiteValue(this.db, APPEARANCE_KEY);
  }

  /** Replaces the stored appearance; needs update on the deployment config. */
  async set(json: string): Promise<void> {
    this.require('update', siteObject('deployment_config'));
    await siteConfig.setSiteValue(this.db, APPEARANCE_KEY, json);
  }
}
