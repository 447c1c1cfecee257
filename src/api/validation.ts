import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type AddFormats = (ajv: Ajv, formats: readonly string[]) => Ajv;
// ajv-formats ships CommonJS whose default export TypeScript and Node see at different depths.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

const shared: Options = { allErrors: true, verbose: true, strict: false, useDefaults: true };

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv, ['uuid', 'date-time', 'email', 'uri']);
  return ajv;
}

// Bodies are JSON and keep their types: "5" is not a number. Query strings and path parameters
// are text, so they are coerced to the declared type.
const bodyAjv = withFormats(new Ajv({ ...shared, coerceTypes: false }));
const textAjv = withFormats(new Ajv({ ...shared, coerceTypes: 'array' }));

/** Compiles route schemas: strict for bodies, coercing for the query string, params and headers. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};
