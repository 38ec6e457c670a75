// A GraphQL request's own parameters read strictly: `variables` and `extensions` of a GET must be JSON, and a
// POST body JSON, or the answer is a 400 naming what is wrong. Yoga's GET parser would throw the JSON parser's
// SyntaxError as an unexpected error (a 500, logged at error level), and its POST parser hands the parser's
// message, which quotes the client's bytes, back in `extensions.originalError`.
import { createGraphQLError, type Plugin } from 'graphql-yoga';

const JSON_PARAMS = ['variables', 'extensions'] as const;

function checkJsonParams(query: URLSearchParams): void {
  for (const name of JSON_PARAMS) {
    const text = query.get(name);
    if (text === null || text === '') continue;
    try {
      JSON.parse(text);
    } catch {
      throw createGraphQLError(
        `${name} must be a JSON object, URL-encoded (e.g. ${name}=%7B%7D for {}); the ${text.length} characters given are not JSON.`,
        { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } },
      );
    }
  }
}

/** Yoga marks a body that does not parse with `originalError`: said again without the parser's words. */
function withoutParserDetail(error: unknown): unknown {
  const extensions = (error as { extensions?: Record<string, unknown> } | null)?.extensions;
  if (!extensions?.originalError) return error;
  return createGraphQLError('The request body is not valid JSON.', {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

export function wellFormedParams(): Plugin {
  return {
    onRequestParse({ url, requestParser, setRequestParser }) {
      if (!requestParser) return;
      const parse = requestParser;
      setRequestParser(async (request) => {
        if (request.method === 'GET') checkJsonParams(url.searchParams);
        try {
          return await parse(request);
        } catch (error) {
          throw withoutParserDetail(error);
        }
      });
    },
  };
}
