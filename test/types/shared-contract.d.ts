// Types for the v2 contract checker's field table (test/fixtures/v2-contract/fields.mjs, a pinned copy of
// ../shared/v2-contract/fields.mjs; plain JavaScript), which tests import by a relative path.
declare module '*/v2-contract/fields.mjs' {
  /** Checks one value; returns an error message or null. */
  export type FieldType = (value: unknown, path: string) => string | null;
  /** A record's fields in spec order, each with its type. */
  export type Fields = ReadonlyArray<readonly [name: string, type: FieldType]>;

  export const Location: Fields;
  export const Image: Fields;
  export const Review: Fields;
  export const PriorityTag: Fields;
  export const SimplePortfolio: Fields;
  export const AddOnTemplate: Fields;
  export const LinkedAddOn: Fields;
  export const SocialSite: Fields;
  export const Social: Fields;
  export const CalendarWorkDay: Fields;
  export const Photographer: Fields;
  export const Package: Fields;

  /** Exact key set and order, then each field's type; returns the error messages. */
  export function checkRecord(value: unknown, fields: Fields, path: string): string[];
  /** The rules that tie package fields together (spec 2.2 rules 1-2). */
  export function checkPackageRules(pkg: unknown, path: string): string[];
}
