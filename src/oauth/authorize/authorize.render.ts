import type { AuthorizeView } from './authorization-flow.service';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type PageView = AuthorizeView | { page: 'error'; message: string };

/** Renders one step of the authorization page. */
export function renderAuthorizePage(v: PageView): string {
  const body = ((): string => {
    if (v.page === 'error') return `<h1>Cannot continue</h1><p>${esc(v.message)}</p>`;
    const action = (step: string) => `/oauth/interaction/${encodeURIComponent(v.uid)}/${step}`;
    const app = `<p><strong>${esc(v.app.name)}</strong> <span>(${esc(v.app.origin)})</span></p>`;
    const cancel = `<form method="post" action="${action('abort')}"><button type="submit">Cancel</button></form>`;
    switch (v.page) {
      case 'sign-in':
        return `<h1>Sign in to connect an app</h1>${app}
${v.error ? `<p role="alert">${esc(v.error)}</p>` : ''}
<form method="post" action="${action('sign-in')}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>${cancel}`;
      case 'consent':
        return `<h1>Connect ${esc(v.app.name)} to ${esc(v.organisation)}</h1>${app}
${v.error ? `<p role="alert">${esc(v.error)}</p>` : ''}
${v.firstConnection ? `<p>This is the first connection of this app to ${esc(v.organisation)}. As ${esc(v.account.role)}, connecting it approves it for the organisation.</p>` : ''}
<form method="post" action="${action('consent')}">
<fieldset><legend>The app may</legend>
${v.scopes.map((s) => `<div><input type="checkbox" id="scope-${esc(s.name)}" name="scope" value="${esc(s.name)}" checked><label for="scope-${esc(s.name)}">${esc(s.words)} <code>${esc(s.name)}</code></label></div>`).join('\n')}
</fieldset>
<fieldset><legend>Which data</legend>
<div><input type="radio" id="mode-live" name="mode" value="live" checked><label for="mode-live">Live data</label></div>
<div><input type="radio" id="mode-test" name="mode" value="test"><label for="mode-test">Test data (sandbox)</label></div>
</fieldset>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
      case 'waiting':
        return `<h1>Waiting for your admin's approval</h1>${app}
<p>${esc(v.app.name)} has not been approved for ${esc(v.organisation)} yet. An Owner or Admin sees your request in the console.</p>
<p><a href="/oauth/interaction/${encodeURIComponent(v.uid)}">Check again</a></p>${cancel}`;
      case 'denied':
        return `<h1>This app is not allowed</h1>${app}
<p>An admin of ${esc(v.organisation)} has denied this app.</p>
<form method="post" action="${action('abort')}"><button type="submit">Return to the app</button></form>`;
    }
  })();
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connect an app · Gatehouse</title></head><body><main>${body}</main></body></html>`;
}
