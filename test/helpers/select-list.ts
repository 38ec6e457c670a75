// What a statement returns, read from its SQL text: the names of its top-level select list (for the projection
// test, test/graphql/projection.test.ts).

/** Whether a statement reads the package table or the package's prepared document, under any alias. */
export const readsPackages = (sql: string) => /\b(?:FROM|JOIN)\s+package(?:_document)?\b/i.test(sql);

/** The items of a statement's top-level select list (up to its FROM, outside parentheses, brackets and quotes). */
function selectItems(sql: string): string[] {
  const body = sql.replace(/^\s*SELECT\s+/i, '');
  const items: string[] = [];
  let item = '';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '(' || c === '[') {
      depth++;
    } else if (c === ')' || c === ']') {
      depth--;
    } else if (depth === 0 && c === ',') {
      items.push(item.trim());
      item = '';
      continue;
    } else if (depth === 0 && /^\s(?:FROM|WHERE)\b/i.test(body.slice(i))) {
      break;
    }
    item += c;
  }
  items.push(item.trim());
  return items;
}

/** The names a statement returns: each select item's alias, else its column's name (`e.position`: position). */
export function returnedNames(sql: string): string[] {
  return selectItems(sql)
    .map((item) => {
      const named = /\bAS\s+(?:"([^"]+)"|(\w+))$/i.exec(item) ?? /(?:^|\.)"?(\w+)"?$/.exec(item);
      return named?.[1] ?? named?.[2] ?? `(unnamed: ${item})`;
    })
    .sort();
}
