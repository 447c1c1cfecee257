import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv, formats: readonly string[]) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }), ['uuid', 'date-time', 'email', 'uri']);

/** What is wrong with `value` as the wire schema describes it (formats included); empty when nothing. */
export function wireProblems(schema: TSchema, value: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}
