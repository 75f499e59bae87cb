/**
 * Jest setup (every test file): oidc-provider's one-line runtime warning on Node 20 (docs/decisions.md, "oidc-provider
 * 9 on Node 20") would otherwise print, with a stack, once per test file. Every other warning still prints.
 */
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime')) return;
  warn(...args);
};
