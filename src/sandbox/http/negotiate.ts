import { frameworkError } from './laravel.js';

/**
 * Laravel's `$request->expectsJson()`: the first type of `Accept` is JSON (`application/json`,
 * `...+json`), or the request is an XMLHttpRequest that accepts anything.
 */
export function expectsJson(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  const first = accept.split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (first.includes('/json') || first.includes('+json')) return true;
  const ajax = request.headers.get('x-requested-with') === 'XMLHttpRequest';
  return ajax && (first === '' || first === '*/*' || first === '*');
}

/** Titles of Laravel's error pages (`errors::<status>` views). */
const TITLES: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  419: 'Page Expired',
  429: 'Too Many Requests',
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Laravel's minimal error page for `status`. */
function errorPage(status: number, headers: Headers): Response {
  const title = TITLES[status] ?? 'Error';
  const html =
    '<!DOCTYPE html>\n<html lang="en">\n    <head>\n        <meta charset="utf-8">\n' +
    `        <title>${title}</title>\n    </head>\n    <body>\n` +
    `        <div class="code">${status}</div>\n        <div class="message">${title}</div>\n    </body>\n</html>\n`;
  headers.set('content-type', 'text/html; charset=UTF-8');
  headers.delete('content-length');
  return new Response(html, { status, headers });
}

/** Symfony's RedirectResponse page, as `redirect()->back()` sends it. */
function redirectPage(location: string, headers: Headers): Response {
  const escaped = location.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const html =
    '<!DOCTYPE html>\n<html>\n    <head>\n        <meta charset="UTF-8" />\n' +
    `        <meta http-equiv="refresh" content="0;url='${escaped}'" />\n\n` +
    `        <title>Redirecting to ${escaped}</title>\n    </head>\n    <body>\n` +
    `        Redirecting to <a href="${escaped}">${escaped}</a>.\n    </body>\n</html>`;
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('location', location);
  headers.delete('content-length');
  return new Response(html, { status: 302, headers });
}

/**
 * What Laravel's exception handler sends a client that did not ask for JSON, in Laravel 8 and 12
 * alike: a failed authentication redirects to the `login` route, which an API has not defined,
 * so the client gets a 500 page; a failed validation redirects back (the `Referer`, else the
 * site's root) with a 302; any other HttpException becomes the HTML page of its status. The
 * headers already set (rate limit, `Allow`, `Retry-After`) are kept. A client that sends
 * `Accept: application/json`, as the SDK does, always gets the JSON.
 */
export function negotiate(request: Request, response: Response, origin: string): Response {
  const kind = frameworkError(response);
  if (kind === undefined || expectsJson(request)) return response;
  if (kind === 'authentication') {
    return errorPage(500, new Headers({ 'cache-control': 'no-cache, private' }));
  }
  const headers = new Headers(response.headers);
  if (kind === 'validation') return redirectPage(request.headers.get('referer') ?? origin, headers);
  return errorPage(response.status, headers);
}
