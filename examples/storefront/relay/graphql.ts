// The tag relay-compiler finds the documents by. A Relay app imports `graphql` from react-relay, whose Babel
// plugin swaps each document for its compiled artifact; here the documents are only compiled (test/graphql/
// relay.test.ts), so the tag just keeps the text.
export const graphql = (strings: TemplateStringsArray): string => strings.join('');
