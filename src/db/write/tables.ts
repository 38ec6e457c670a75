// The one registry of the tables the listing is written into, in foreign-key order: who owns each table's rows
// and what a repeated row means. The seed's bulk load, the import's upserts and replacements, a reset and the
// tests all read it here.

import type { SharedKind } from '../../v2/contract.js';
import type { ModelName } from '../columns.js';

export type { SharedKind };

export type Owner =
  /** The package records themselves: one row each, upserted by identifier. */
  | { kind: 'record' }
  /** Records stored once per identifier and linked from every record that embeds them. */
  | { kind: 'shared'; shared: SharedKind }
  /** Rows that belong to one photographer or one package (its ordered lists): replaced with their owner's lists. */
  | {
      kind: 'photographer' | 'package';
      /** The column naming the owner. */
      column: 'photographer_id' | 'package_id';
      /** Whether rows carry an identifier of their own, which no other owner may use. */
      keyed: boolean;
      /** Where a row's identifier stands in its package record, for messages. */
      path: (position: number) => string;
    };

export interface Table {
  name: string;
  /** The Prisma model that declares its columns (src/db/columns.ts). */
  model: ModelName;
  owner: Owner;
  /**
   * In a bulk load, a row already there is left as it is rather than an error: shared records, and what a
   * photographer owns (a photographer's packages may come in two batches, and each brings the photographer's rows).
   */
  skipExisting: boolean;
}

const shared = (name: string, model: ModelName, kind: SharedKind): Table => ({
  name,
  model,
  owner: { kind: 'shared', shared: kind },
  skipExisting: true,
});

const ownedBy = (
  kind: 'photographer' | 'package',
  name: string,
  model: ModelName,
  keyed: boolean,
  path: (position: number) => string,
): Table => ({
  name,
  model,
  owner: { kind, column: kind === 'photographer' ? 'photographer_id' : 'package_id', keyed, path },
  skipExisting: kind === 'photographer',
});

export const TABLES: readonly Table[] = [
  shared('photographer', 'Photographer', 'photographer'),
  ownedBy('photographer', 'review', 'Review', true, () => 'photographer.review.identifier'),
  shared('image', 'Image', 'image'),
  shared('social_site', 'SocialSite', 'socialSite'),
  ownedBy('photographer', 'social', 'Social', true, (i) => `photographer.socials[${i}].identifier`),
  ownedBy(
    'photographer',
    'photographer_cover_image',
    'PhotographerCoverImage',
    false,
    (i) => `photographer.cover_image[${i}]`,
  ),
  ownedBy(
    'photographer',
    'calendar_work_day',
    'CalendarWorkDay',
    true,
    (i) => `photographer.calendar_work_days[${i}].identifier`,
  ),
  shared('priority_tag', 'PriorityTag', 'priorityTag'),
  shared('simple_portfolio', 'SimplePortfolio', 'portfolio'),
  shared('add_on_template', 'AddOnTemplate', 'addOnTemplate'),
  { name: 'package', model: 'Package', owner: { kind: 'record' }, skipExisting: false },
  ownedBy('package', 'package_image', 'PackageImage', false, (i) => `images[${i}]`),
  ownedBy('package', 'package_priority_tag', 'PackagePriorityTag', false, (i) => `priority_tags[${i}]`),
  ownedBy('package', 'package_simple_portfolio', 'PackageSimplePortfolio', false, (i) => `simple_portfolio[${i}]`),
  ownedBy('package', 'linked_add_on', 'LinkedAddOn', true, (i) => `linked_add_ons[${i}].identifier`),
];

/** Derived from the packages in the same transaction that changes them; written by renumbering, never loaded. */
export const LISTING_TABLE = 'listing_entry';

export type SharedTable = Table & { owner: Extract<Owner, { kind: 'shared' }> };
export type OwnedTable = Table & { owner: Extract<Owner, { column: string }> };

export const sharedTables = (): SharedTable[] =>
  TABLES.filter((table): table is SharedTable => table.owner.kind === 'shared');
export const ownedTables = (kind: 'photographer' | 'package'): OwnedTable[] =>
  TABLES.filter((table): table is OwnedTable => table.owner.kind === kind);
