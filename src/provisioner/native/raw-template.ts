import type { PARAMETER_TYPES, RESOURCE_TYPES } from './template-schema.js';

// What the walker returns for a `template.yaml` that passed TEMPLATE_SCHEMA: plain values in the
// schema's shape. The schema is what is checked, these are what the provisioner then reads.

/** `template.yaml` as the walker returns it: the schema's shape, every scalar already checked. */
export interface RawTemplate {
  readonly description?: string;
  readonly icon?: string;
  readonly variables?: readonly RawVariable[];
  readonly parameters?: readonly RawParameter[];
  readonly presets?: readonly RawPreset[];
  readonly external_auth?: readonly { readonly id: string; readonly optional?: boolean }[];
  readonly resources?: readonly RawResource[];
}

export interface RawVariable {
  readonly name: string;
  readonly description?: string;
  readonly type?: 'string' | 'number' | 'bool';
  readonly default?: string;
  readonly sensitive?: boolean;
}

export interface RawParameter {
  readonly name: string;
  readonly display_name?: string;
  readonly description?: string;
  readonly type?: (typeof PARAMETER_TYPES)[number];
  readonly form_type?: string;
  readonly default?: string;
  readonly mutable?: boolean;
  readonly ephemeral?: boolean;
  readonly icon?: string;
  readonly order?: number;
  readonly options?: readonly { readonly name: string; readonly description?: string; readonly value: string; readonly icon?: string }[];
  readonly validation?: {
    readonly min?: number;
    readonly max?: number;
    readonly monotonic?: 'increasing' | 'decreasing';
    readonly regex?: string;
    readonly error?: string;
  };
}

export interface RawPreset {
  readonly name: string;
  readonly default?: boolean;
  readonly parameters?: Readonly<Record<string, string>>;
}

export interface RawScript {
  readonly display_name?: string;
  readonly script: string;
  readonly cron?: string;
  readonly run_on_start?: boolean;
  readonly run_on_stop?: boolean;
  readonly start_blocks_login?: boolean;
  readonly timeout?: number;
  readonly log_path?: string;
}

export interface RawApp {
  readonly slug: string;
  readonly display_name?: string;
  readonly url?: string;
  readonly command?: string;
  readonly icon?: string;
  readonly external?: boolean;
  readonly subdomain?: boolean;
  readonly share?: 'owner' | 'authenticated' | 'organization' | 'public';
  readonly hidden?: boolean;
  readonly open_in?: 'slim-window' | 'tab';
  readonly group?: string;
  readonly healthcheck?: { readonly url: string; readonly interval?: number; readonly threshold?: number };
}

export interface RawAgentMetadata {
  readonly key: string;
  readonly display_name?: string;
  readonly script: string;
  readonly interval: number;
  readonly timeout?: number;
  readonly order?: number;
}

export interface RawAgent {
  readonly name: string;
  readonly dir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly os?: string;
  readonly arch?: string;
  readonly connection_timeout?: number;
  readonly troubleshooting_url?: string;
  readonly display_apps?: readonly string[];
  readonly startup_script_behavior?: 'blocking' | 'non-blocking';
  /** The cloud instance the agent runs on, for instance identity authentication. */
  readonly instance_id?: string;
  readonly scripts?: readonly RawScript[];
  readonly apps?: readonly RawApp[];
  readonly metadata?: readonly RawAgentMetadata[];
}

/** A resource entry; the fields beyond the common ones depend on `type`. */
export interface RawResource {
  readonly name: string;
  readonly type: (typeof RESOURCE_TYPES)[number];
  readonly hide?: boolean;
  readonly icon?: string;
  readonly daily_cost?: number;
  readonly metadata?: readonly { readonly key: string; readonly value?: string; readonly sensitive?: boolean }[];
  readonly agents?: readonly RawAgent[];
  /** directory */
  readonly path?: string;
  /** docker */
  readonly image?: string;
  readonly volumes?: readonly string[];
  /** docker and hook */
  readonly env?: Readonly<Record<string, string>>;
  /** hook */
  readonly create?: string;
  readonly start?: string;
  readonly stop?: string;
  readonly delete?: string;
}
