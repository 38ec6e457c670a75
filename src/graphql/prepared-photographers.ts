// A package's photographer asked for with every field (as the FullPackage fragment does) is answered from the
// text the read model prepared for the listing version (src/db/write/read-model.ts), not resolved field by field:
// on a full page that was more than half of the server's work (50 photographers, some 80 fields each, read from
// JSON built per request, then written out again).
//
// How: before execution, a document whose one `Package.photographer` selects exactly every field (plain fields in
// the schema's order: no alias, argument, directive or fragment below it) is run with that selection replaced by
// a marker (`id`, under an alias only this module makes). The package's read brings the prepared text in the same
// statement (src/graphql/projection.ts asks for it; a second statement for the photographers kept every page's rows
// alive across a round trip, which cost more than the photographers themselves), and the photographer resolver
// notes it instead of loading the profile. Once the execution is done, each marker in the answer becomes a token,
// and the answer's JSON text has the prepared bytes spliced in where the tokens are. The bytes are graphql-js's own
// (test/graphql/prepared-photographers.test.ts compares every page both ways).
//
// The prepared text leaves holes for the private fields (and for calendars): the server writes each private value,
// or null and the FORBIDDEN error for a caller without the "private" scope, as the resolvers would have.
import { randomBytes } from 'node:crypto';
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  Kind,
  type SelectionSetNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { PHOTOGRAPHER_GRAPHQL_HOLES } from '../db/write/read-model.js';
import type { PackageRow, PhotographerProfile } from '../listing/rows.js';
import type { Context, PreparedPlace } from './context.js';
import { everyField, type SelectedField } from './every-field.js';
import { isPrivateField } from './private-fields.js';

const MARKER = '__preparedPhotographer';
/** The marker fields this module made: a client's own alias of that name is not one. */
const markers = new WeakSet<FieldNode>();

function markerSelection(): SelectionSetNode {
  const field: FieldNode = {
    kind: Kind.FIELD,
    alias: { kind: Kind.NAME, value: MARKER },
    name: { kind: Kind.NAME, value: 'id' },
  };
  markers.add(field);
  return { kind: Kind.SELECTION_SET, selections: [field] };
}

/** The fields below these nodes, in order, merged by name; null where anything but plain fields is selected. */
function plainFields(nodes: readonly FieldNode[]): Map<string, FieldNode[]> | null {
  const fields = new Map<string, FieldNode[]>();
  for (const node of nodes) {
    for (const selection of node.selectionSet?.selections ?? []) {
      if (selection.kind !== Kind.FIELD || selection.directives?.length || selection.arguments?.length) return null;
      if (selection.alias && selection.alias.value !== selection.name.value) return null;
      const group = fields.get(selection.name.value);
      if (group) group.push(selection);
      else fields.set(selection.name.value, [selection]);
    }
  }
  return fields;
}

/** Whether the nodes select exactly `expected`, in its order. */
function selectsExactly(nodes: readonly FieldNode[], expected: readonly SelectedField[]): boolean {
  const fields = plainFields(nodes);
  if (!fields || fields.size !== expected.length) return false;
  let i = 0;
  for (const [name, group] of fields) {
    const field = expected[i++] as SelectedField;
    if (name !== field.name) return false;
    if (field.below ? !selectsExactly(group, field.below) : group.some((node) => node.selectionSet)) return false;
  }
  return true;
}

/** Every field of the photographer, as a package's selection of every field has it (made once per schema). */
const photographerFieldsBySchema = new WeakMap<GraphQLSchema, SelectedField[]>();
function everyPhotographerField(schema: GraphQLSchema): SelectedField[] {
  let fields = photographerFieldsBySchema.get(schema);
  if (!fields) {
    const packageFields = everyField(schema.getType('Package') as GraphQLObjectType);
    fields = packageFields.find((field) => field.name === 'photographer')?.below ?? [];
    photographerFieldsBySchema.set(schema, fields);
  }
  return fields;
}

/** The document with its package's photographer marked, or the document itself when it does not qualify. */
export function withPreparedPhotographer(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  const found: FieldNode[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (node.name.value === 'photographer' && typeInfo.getParentType()?.name === 'Package') found.push(node);
      },
    }),
  );
  // One such field in the whole document: no other selection of the photographer can merge with it.
  const [field] = found;
  if (found.length !== 1 || !field || field.directives?.length || (field.alias && field.alias.value !== 'photographer'))
    return document;
  if (!selectsExactly([field], everyPhotographerField(schema))) return document;
  return visit(document, {
    Field: (node) => (node === field ? { ...node, selectionSet: markerSelection() } : undefined),
  });
}

/** Whether these nodes of a photographer field were marked: its answer is the prepared text. */
export const isPreparedSelection = (nodes: readonly FieldNode[]): boolean =>
  nodes.length > 0 &&
  nodes.every((node) => {
    const [only, ...more] = node.selectionSet?.selections ?? [];
    return more.length === 0 && markers.has(only as FieldNode);
  });

/** Whether the photographer being resolved was marked. */
export const wantsPreparedPhotographer = (info: GraphQLResolveInfo): boolean => isPreparedSelection(info.fieldNodes);

/** How each hole's value is written, in the order of PHOTOGRAPHER_GRAPHQL_HOLES, as the field's resolver would. */
interface Hole {
  /** `Photographer.<field>` where the field is private, as the answer's FORBIDDEN error names it. */
  private?: string;
  write(value: string, privateScope: boolean): string;
}

const holesBySchema = new WeakMap<GraphQLSchema, Hole[]>();
function holes(schema: GraphQLSchema): Hole[] {
  let found = holesBySchema.get(schema);
  if (!found) {
    const fields = (schema.getType('Photographer') as GraphQLObjectType).getFields();
    found = Object.keys(PHOTOGRAPHER_GRAPHQL_HOLES).map((name) => {
      const field = fields[name] as GraphQLField<unknown, unknown>;
      const isPrivate = isPrivateField(field);
      // The JSON scalar answers the value parsed (calendars from calendarsJson); the others are strings.
      const json = getNamedType(field.type).name === 'JSON';
      return {
        ...(isPrivate && { private: `Photographer.${name}` }),
        write: (value: string, privateScope: boolean) =>
          isPrivate && !privateScope ? 'null' : json ? JSON.stringify(JSON.parse(value)) : JSON.stringify(value),
      };
    });
    holesBySchema.set(schema, found);
  }
  return found;
}

/**
 * Notes where the answer holds the package's photographer's prepared text, which its read brought. What it returns
 * stands for the photographer in the execution, where the marker reads its id alone.
 */
export function preparedPhotographer(p: PackageRow, ctx: Context, info: GraphQLResolveInfo): PhotographerProfile {
  const { photographerText, photographerParts, photographerHoles } = p;
  // Every read that the projection sends for a marked photographer brings it (src/listing/store.ts).
  if (photographerText === undefined || photographerParts === undefined || photographerHoles === undefined)
    throw new Error(`package ${p.id} was read without its photographer's prepared text`);
  const privateScope = ctx.scopes.has('private');
  if (!privateScope) for (const hole of holes(info.schema)) if (hole.private) ctx.withheld.add(hole.private);
  const path: (string | number)[] = [];
  for (let at: GraphQLResolveInfo['path'] | undefined = info.path; at; at = at.prev) path.unshift(at.key);
  ctx.preparedPhotographers.push({
    path,
    prepared: { photographerText, photographerParts, photographerHoles },
    privateScope,
  });
  return { id: p.photographerId } as PhotographerProfile;
}

const bytes = (text: Uint8Array | string) => (typeof text === 'string' ? Buffer.from(text) : text);

/** The place's photographer as JSON: its parts, with the holes' values written between them. */
function photographerJson(place: PreparedPlace, holeWriters: readonly Hole[], pieces: Uint8Array[]): void {
  const { photographerText, photographerParts, photographerHoles } = place.prepared;
  const text = bytes(photographerText);
  let at = 0;
  photographerParts.forEach((length, i) => {
    pieces.push(text.subarray(at, at + length));
    at += length;
    if (i === photographerParts.length - 1) return;
    const value = photographerHoles[i];
    pieces.push(
      Buffer.from(
        value === null || value === undefined ? 'null' : (holeWriters[i] as Hole).write(value, place.privateScope),
      ),
    );
  });
}

/** The answer's JSON with each token `"<nonce><i>"` replaced by the i-th place's photographer. */
function splice(text: string, nonce: string, places: readonly PreparedPlace[], holeWriters: readonly Hole[]): Buffer {
  // Encoded once and cut as bytes: slices of a string outside Latin-1 would each be encoded on their own.
  const whole = Buffer.from(text);
  const opening = Buffer.from(`"${nonce}`);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (let at = whole.indexOf(opening); at >= 0; at = whole.indexOf(opening, from)) {
    const end = whole.indexOf(0x22, at + opening.length); // the token's closing quote
    pieces.push(whole.subarray(from, at));
    photographerJson(
      places[Number(whole.toString('latin1', at + opening.length, end))] as PreparedPlace,
      holeWriters,
      pieces,
    );
    from = end + 1;
  }
  pieces.push(whole.subarray(from));
  return Buffer.concat(pieces);
}

/** Puts a token where each prepared photographer's marker is; false when none is left in the answer. */
function tokens(data: unknown, places: readonly PreparedPlace[], nonce: string): boolean {
  let any = false;
  places.forEach(({ path }, index) => {
    let parent: unknown = data;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | null)?.[key];
    const key = path[path.length - 1] as string | number;
    const holder = parent as Record<string | number, unknown> | null | undefined;
    const marked = holder?.[key] as Record<string, unknown> | null | undefined;
    if (!holder || !marked || !(MARKER in marked)) return; // a null answered for it (an error above)
    holder[key] = `${nonce}${index}`;
    any = true;
  });
  return any;
}

/** Marks documents that qualify, and splices the prepared texts in. */
export function preparedPhotographers(): Plugin<Context> {
  const rewritten = new WeakMap<DocumentNode, DocumentNode>();
  return {
    onExecute({ args }) {
      const context = args.contextValue as Context;
      let document = rewritten.get(args.document);
      if (!document) {
        document = withPreparedPhotographer(args.schema, args.document);
        rewritten.set(args.document, document);
      }
      if (document === args.document) return;
      (args as { document: DocumentNode }).document = document;
      return {
        onExecuteDone({ result }) {
          const places = context.preparedPhotographers;
          if (places.length === 0 || !('data' in result) || !result.data) return;
          const nonce = `prepared-${randomBytes(12).toString('hex')}-`;
          if (!tokens(result.data, places, nonce)) return;
          // Yoga takes the body as given: bytes make the same Response its own string would.
          const holeWriters = holes(args.schema);
          (result as { stringify?: (value: unknown) => unknown }).stringify = (value) =>
            splice(JSON.stringify(value), nonce, places, holeWriters);
        },
      };
    },
  };
}
