import { Type, type Static } from '@sinclair/typebox';

/** The terminal fonts the dashboard offers; the empty name is the dashboard's default font. */
export const TERMINAL_FONT_NAMES = ['', 'ibm-plex-mono', 'fira-code', 'source-code-pro', 'jetbrains-mono'] as const;

/** A user's theme and terminal font (`GET/PUT /users/{user}/appearance`). */
export const UserAppearanceSettings = Type.Object({
  theme_preference: Type.String(),
  terminal_font: Type.String(),
});
export type UserAppearanceSettings = Static<typeof UserAppearanceSettings>;

export const UpdateUserAppearanceSettingsRequest = Type.Object({
  theme_preference: Type.String(),
  // A font of TERMINAL_FONT_NAMES; checked by the route, which names the refusal as the reference does.
  terminal_font: Type.Optional(Type.String()),
});
export type UpdateUserAppearanceSettingsRequest = Static<typeof UpdateUserAppearanceSettingsRequest>;

/** What the user dismissed or chose in the dashboard (`GET/PUT /users/{user}/preferences`). */
export const UserPreferenceSettings = Type.Object({
  task_notification_alert_dismissed: Type.Boolean(),
});
export type UserPreferenceSettings = Static<typeof UserPreferenceSettings>;

export const UpdateUserPreferenceSettingsRequest = Type.Object({
  task_notification_alert_dismissed: Type.Boolean(),
});
export type UpdateUserPreferenceSettingsRequest = Static<typeof UpdateUserPreferenceSettingsRequest>;

/** A banner across the dashboard; message and color are left out when empty, as the reference sends them. */
export const BannerConfig = Type.Object({
  enabled: Type.Boolean(),
  message: Type.Optional(Type.String()),
  background_color: Type.Optional(Type.String()),
});
export type BannerConfig = Static<typeof BannerConfig>;

/** A link of the dashboard's help menu; `icon` names a built-in icon (`bug`, `chat`, `docs`, `star`) or is a URL. */
export const LinkConfig = Type.Object({
  name: Type.String(),
  target: Type.String(),
  icon: Type.String(),
  location: Type.Optional(Type.Union([Type.Literal('navbar'), Type.Literal('dropdown')])),
});
export type LinkConfig = Static<typeof LinkConfig>;

/** The deployment's appearance (`GET /appearance`). */
export const AppearanceConfig = Type.Object({
  application_name: Type.String(),
  logo_url: Type.String(),
  docs_url: Type.String(),
  service_banner: BannerConfig,
  announcement_banners: Type.Array(BannerConfig),
  support_links: Type.Optional(Type.Array(LinkConfig)),
});
export type AppearanceConfig = Static<typeof AppearanceConfig>;

/** What an owner sets (`PUT /appearance`); support links and the docs URL come from server options only. */
export const UpdateAppearanceConfig = Type.Object({
  application_name: Type.String(),
  logo_url: Type.String(),
  service_banner: Type.Optional(BannerConfig),
  announcement_banners: Type.Optional(Type.Array(BannerConfig)),
});
export type UpdateAppearanceConfig = Static<typeof UpdateAppearanceConfig>;

/**
 * A user's quiet hours (`GET/PUT /users/{user}/quiet-hours`): the daily time at which a template's
 * autostop requirement may stop their workspaces.
 */
export const UserQuietHoursScheduleResponse = Type.Object({
  /** The schedule in effect, as a cron text: the user's own, or the deployment default. */
  raw_schedule: Type.String(),
  /** Whether the user chose this schedule (false: the deployment default applies). */
  user_set: Type.Boolean(),
  /** Whether the deployment lets users choose their own. */
  user_can_set: Type.Boolean(),
  /** `HH:mm`, 24-hour, in `timezone`. */
  time: Type.String(),
  /** The schedule's zone, `UTC` when it names none. */
  timezone: Type.String(),
  /** When the quiet hours next start. */
  next: Type.String(),
});
export type UserQuietHoursScheduleResponse = Static<typeof UserQuietHoursScheduleResponse>;

export const UpdateUserQuietHoursScheduleRequest = Type.Object({
  /** A daily cron text, `[CRON_TZ=<zone>] <minute> <hour> * * *`; empty goes back to the default. */
  schedule: Type.String(),
});
export type UpdateUserQuietHoursScheduleRequest = Static<typeof UpdateUserQuietHoursScheduleRequest>;
