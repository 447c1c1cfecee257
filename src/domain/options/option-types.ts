/**
 * The shape every server option is declared in. The group files declare the options; the
 * registry puts them in one list that `cove serve --help`, the `--config` YAML file, the
 * environment and `GET /deployment/config` all read.
 */

/** Where a resolved value came from, highest precedence first. */
export type ValueSource = 'flag' | 'env' | 'yaml' | 'default';

/** A section of settings, as `--help` and the YAML file group them. */
export interface OptionGroup {
  readonly name: string;
  readonly yaml: string;
  readonly description: string;
}

/** How an option's text is parsed, and how `/deployment/config` shows its value. */
export type OptionKind = 'string' | 'url' | 'bool' | 'int' | 'duration' | 'string-array';

/**
 * One setting: its names in every source, its type, default and documentation. `Key` is the
 * field of the resolved values it fills, so a group can only declare fields of its own slice.
 */
export interface OptionDefinition<Key extends string = string> {
  readonly key: Key;
  readonly name: string;
  readonly description: string;
  readonly flag: string;
  readonly flagShorthand?: string;
  readonly env: string;
  /** Key inside the group's YAML section; empty for settings that cannot come from YAML. */
  readonly yaml: string;
  readonly group: OptionGroup;
  /** Path of the setting inside the `config` object of `GET /deployment/config`. */
  readonly configPath: readonly string[];
  readonly kind: OptionKind;
  readonly default: string;
  readonly hidden?: boolean;
  /** Redacted wherever the value is shown. */
  readonly secret?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
}
