import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    '__dirname',
    'require',
    'module',
    'Buffer',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'URL',
    'fetch',
    'globalThis',
  ].map((g) => [g, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'bench/results/**',
      // the client library's build output, and its types generated from the OpenAPI document (checked by CI)
      'clients/typescript/dist/**',
      'clients/typescript/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Only repositories, entities, migrations and src/database talk to TypeORM (types may be imported anywhere).
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typeorm',
              message: 'Only repositories, entities, migrations and src/database import typeorm.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      '**/*.repository.ts',
      '**/*.entity.ts',
      '**/*.seeder.ts',
      'migrations/**',
      'src/database/**',
      'test/**',
      'bench/**',
      '**/*.spec.ts',
    ],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // scripts the docs pages load in the browser (served as they are, not imported)
    files: ['src/docs/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        ['document', 'requestAnimationFrame', 'MutationObserver'].map((g) => [g, 'readonly']),
      ),
    },
  },
);
