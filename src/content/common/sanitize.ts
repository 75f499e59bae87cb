import sanitizeHtml from 'sanitize-html';

/**
 * The one HTML sanitizer of the public API (campaign updates, blog posts): sanitize-html with an allow-list of
 * text markup, links (http, https, mailto; rel="noopener nofollow ugc") and https images. Scripts, styles,
 * event handlers, iframes, forms and `javascript:` URLs never pass. Results are cached by input, since the
 * same stored HTML is served many times.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'blockquote',
    'ul',
    'ol',
    'li',
    'h2',
    'h3',
    'h4',
    'a',
    'img',
    'figure',
    'figcaption',
    'code',
    'pre',
    'hr',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener nofollow ugc', target: '_blank' }),
  },
};
OPTIONS.allowedAttributes = { ...OPTIONS.allowedAttributes, a: ['href', 'title', 'rel', 'target'] };

const cache = new Map<string, string>();
const CACHE_MAX = 5_000;

export function sanitize(html: string): string {
  const hit = cache.get(html);
  if (hit !== undefined) return hit;
  const clean = sanitizeHtml(html, OPTIONS);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(html, clean);
  return clean;
}
