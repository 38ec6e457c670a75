// Django's own error pages, byte for byte, as the legacy service answered with them (DEBUG off, no templates of
// its own): the 404 page for every path it did not route, for every method (HEAD gets its headers alone), and the
// 400 page for a request it refused before its view ran (more query fields than DATA_UPLOAD_MAX_NUMBER_FIELDS).
const page = (title: string, details: string) =>
  `\n<!doctype html>\n<html lang="en">\n<head>\n  <title>${title}</title>\n</head>\n<body>\n  <h1>${title}</h1><p>${details}</p>\n</body>\n</html>\n`;

export const NOT_FOUND_PAGE = page('Not Found', 'The requested resource was not found on this server.');
export const BAD_REQUEST_PAGE = page('Bad Request (400)', '');

export const DJANGO_PAGE_HEADERS = { 'content-type': 'text/html' } as const;

/** Django's DATA_UPLOAD_MAX_NUMBER_FIELDS: a query string of more fields is refused with the 400 page. */
export const MAX_QUERY_FIELDS = 1000;

/** The fields Python's parse_qsl counts in a query string (one more than its '&'; none when it is empty). */
export const queryFields = (query: string) => (query === '' ? 0 : 1 + (query.match(/&/g)?.length ?? 0));
