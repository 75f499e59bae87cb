import { existsSync } from 'node:fs';
import { chromium as playwright, Browser } from 'playwright-core';

/**
 * The one way a test gets a browser. By default the headless Chromium that `npm ci` installs inside the
 * `@sparticuz/chromium` package (no download, no apt step), so every machine and CI run the path a newcomer
 * takes; `CHROMIUM_PATH` points at another Chromium for someone who prefers their own.
 */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS });
}

/**
 * Plain headless flags. The package's own serverless list (`--single-process`, SwiftShader) is made for Lambda and
 * failed to launch under Playwright; without the background-networking flags Chromium tries Google's hosts, which
 * this project's machines cannot reach.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

let resolved: Promise<string> | undefined;

/** The executable: `CHROMIUM_PATH`, or the packaged one (extracted once per machine, at the jest global setup). */
export function chromiumPath(): Promise<string> {
  return (resolved ??= (async () => {
    const own = process.env.CHROMIUM_PATH;
    if (own) {
      if (!existsSync(own))
        throw new Error(`CHROMIUM_PATH=${own}: no such file (unset it to use the packaged browser)`);
      return own;
    }
    // The global setup extracted it already (test/global-setup.mjs); this call then only finds it in the temp dir.
    const { default: packaged } = await import('@sparticuz/chromium');
    return packaged.executablePath();
  })());
}
