// Lint rules that keep the layering and the code's shape honest; formatting is prettier's job.
import tseslint from 'typescript-eslint';

/** What src/api and src/domain may never import: the query functions, the table shapes and kysely itself. */
const storeInternals = {
  patterns: [
    {
      group: ['**/store/queries/*', '**/store/queries'],
      message: 'Reach data through the authorizing store (src/store/authorized-store.ts).',
    },
    {
      group: ['**/store/schema', '**/store/schema.js'],
      message: 'Table shapes are private to src/store; use the row types the store exports.',
    },
  ],
  paths: [{ name: 'kysely', message: 'Queries are built in src/store only.' }],
};

/** The unrestricted database handle, which only src/store may touch. */
const rawDatabase = {
  selector: "MemberExpression[property.name='db']",
  message: 'The raw database handle is private to src/store; add an authorizing-store method instead.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.test-build/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'max-params': ['error', 6],
      'no-var': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // A file past 600 lines holds more than one thing: split it by what it does. Only src/ counts:
    // tests live under test/, and src/ holds no generated code (the dashboard is bundled into dist/).
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 600 }] },
  },
  {
    files: ['src/api/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', storeInternals],
      'no-restricted-syntax': ['error', rawDatabase],
    },
  },
);
