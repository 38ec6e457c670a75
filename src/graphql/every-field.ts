// "Every field" of an object type: the selection the tests and the bench ask for (codegen.ts writes it as the
// FullPackage fragment), and the one a photographer's prepared GraphQL text answers (prepared-photographers.ts).
import { type GraphQLObjectType, getNamedType, isObjectType } from 'graphql';

/** A field of the selection, with the selection below it when its type is an object. */
export interface SelectedField {
  name: string;
  below?: SelectedField[];
}

/**
 * Every field of the type in the schema's order, nested objects included. Left out: fields that take arguments
 * (the photographer's packages connection), fields leading back to a type already on the path, and v2Record (the
 * whole package again, as the legacy v2 text).
 */
export function everyField(type: GraphQLObjectType, path: readonly string[] = []): SelectedField[] {
  const fields: SelectedField[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.args.length > 0 || field.name === 'v2Record') continue;
    const named = getNamedType(field.type);
    if (!isObjectType(named)) fields.push({ name: field.name });
    else if (!path.includes(named.name)) {
      fields.push({ name: field.name, below: everyField(named, [...path, type.name]) });
    }
  }
  return fields;
}

/** The selection as GraphQL text, one field a line. */
export function selectionText(fields: readonly SelectedField[], indent = '  '): string {
  return fields
    .map((field) =>
      field.below
        ? `${indent}${field.name} {\n${selectionText(field.below, `${indent}  `)}\n${indent}}`
        : `${indent}${field.name}`,
    )
    .join('\n');
}
