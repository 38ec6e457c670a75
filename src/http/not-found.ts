// The answer to every path the service does not route: Django's own 404 page, byte for byte, as the legacy
// service gave it (DEBUG off, no 404 template), for every method. HEAD gets its headers without the body.
export const NOT_FOUND_PAGE =
  '\n<!doctype html>\n<html lang="en">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n  <h1>Not Found</h1><p>The requested resource was not found on this server.</p>\n</body>\n</html>\n';

export const NOT_FOUND_HEADERS = { 'content-type': 'text/html' } as const;
