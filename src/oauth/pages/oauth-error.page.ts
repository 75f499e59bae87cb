import { Eta } from 'eta';
import { TEMPLATES } from '../../pages/page-framework';

const eta = new Eta({ views: TEMPLATES, cache: true });

/**
 * The page the engine shows when it cannot send an error back to the app (unknown client, a redirect URI the app
 * did not register, a refused metadata document): the pages' error template, outside Fastify's view (the engine
 * renders in its own Koa context).
 */
export function renderOAuthError(error: string, description?: string): string {
  return eta.render('error', {
    title: 'This app cannot be connected',
    message: `${description ?? error} (${error})`,
    requestId: null,
  });
}
