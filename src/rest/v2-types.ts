// The V2ListingPageFromFields operation renders the v2 records from the GraphQL fields (tests hold the prepared
// v2 texts to it), so the operation's result type (from codegen) must BE the v2 record type of the contract. This file holds the two to each other at compile time: the
// build fails when a field is missing, extra, renamed or of another type on either side.
//
// Two differences are allowed, and only these: GraphQL's JSON scalar is typed `unknown` by codegen where the
// contract says a JSON value; and the private fields are nullable in GraphQL (null without the private scope),
// where the v2 records always carry them (the door reads with every scope).
import type { V2ListingPageFromFieldsQuery } from '../generated/graphql/graphql.js';
import type { JsonValue, V2Package } from '../v2/records.js';

type ResultRecord = V2ListingPageFromFieldsQuery['packages']['results'][number];

type PrivateV2Field = 'photographer_email' | 'payments_user_id';

/** The result type with the two allowed differences taken out. */
type AsV2<T> = unknown extends T
  ? JsonValue
  : T extends readonly (infer Item)[]
    ? AsV2<Item>[]
    : T extends object
      ? { [K in keyof T]: K extends PrivateV2Field ? NonNullable<AsV2<T[K]>> : AsV2<T[K]> }
      : T;

/** Each type assignable to the other: the same fields, each of the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<AsV2<ResultRecord>, V2Package> = true;
void sameShape;

/** The operation's records as the v2 records they are (the compile-time check above is what makes it so). */
export function v2Records(results: readonly ResultRecord[]): V2Package[] {
  return results as unknown as V2Package[];
}
