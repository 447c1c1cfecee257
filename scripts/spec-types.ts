// Writes test/fixtures/spec-types.json, the API specification's type list that tests read (type
// and field names, JSON kinds, formats, required fields, nested fields), from the spec's markdown
// next to the repository. Committed, so that a clone without the spec runs every test; run again
// after the spec changes (test/unit/spec-types-fixture.test.ts says when).
import { existsSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { SPEC_TYPES_FIXTURE, specPath, specTypesFileText, specTypesFromSpec } from '../test/helpers/spec-types.js';

const path = specPath();
if (!existsSync(path)) {
  console.error(`The API specification is not at ${path}: the type list needs it (or set COVE_SPEC_PATH).`);
  process.exit(1);
}
const types = specTypesFromSpec(path);
// Formatted as prettier would, so that `prettier --check .` holds for the generated file.
const text = await format(specTypesFileText(types), { ...(await resolveConfig(SPEC_TYPES_FIXTURE)), filepath: SPEC_TYPES_FIXTURE });
writeFileSync(SPEC_TYPES_FIXTURE, text);
console.log(`Wrote ${Object.keys(types).length} types to test/fixtures/spec-types.json.`);
