// The records the store reads, typed from the Prisma models with one difference: decimals are the exact text
// PostgreSQL sends (`"1500.00"`), never Decimal objects, from the driver to the response.
import type {
  AddOnTemplate,
  CalendarWorkDay,
  Image,
  LinkedAddOn,
  Package,
  Photographer,
  PhotographerCoverImage,
  PriorityTag,
  Prisma,
  Review,
  SimplePortfolio,
  Social,
  SocialSite,
} from '../generated/prisma/client.js';

/** A Prisma model's shape with its decimals as text. */
export type TextDecimals<T> = T extends Prisma.Decimal
  ? string
  : T extends Date
    ? T
    : T extends readonly (infer Item)[]
      ? TextDecimals<Item>[]
      : T extends object
        ? { [K in keyof T]: TextDecimals<T[K]> }
        : T;

/** A package's nested lists as the read model keeps them (src/db/write/read-model.ts). */
export interface PackageLists {
  images: ImageRow[];
  priorityTags: PriorityTagRow[];
  simplePortfolio: SimplePortfolioRow[];
  linkedAddOns: LinkedAddOnRow[];
}

/**
 * JSON text kept as the UTF-8 bytes the database sent, on their way to the socket: never decoded into a
 * JavaScript string (for non-Latin-1 text that costs more than the rest of a page) unless a JSON.stringify of an
 * answer meets it, which sees the string it is. The embedded engine hands over text (its bytea costs more).
 */
export class Utf8Json {
  private encoded: Uint8Array | undefined;
  constructor(private readonly value: Uint8Array | string) {}
  get bytes(): Uint8Array {
    this.encoded ??= typeof this.value === 'string' ? Buffer.from(this.value) : this.value;
    return this.encoded;
  }
  toJSON(): string {
    if (typeof this.value === 'string') return this.value;
    return Buffer.from(this.value.buffer, this.value.byteOffset, this.value.byteLength).toString('utf8');
  }
}

/** A package row, with what its read brought from the read model when the operation selected it. */
export type PackageRow = TextDecimals<Package> & {
  /** The package's v2 record as JSON text (DRF's bytes): bytea as the driver gives it, or text. */
  v2Record?: Uint8Array | string;
  lists?: PackageLists;
  /**
   * The photographer's GraphQL text with every field, as the read model keeps it (src/db/write/read-model.ts):
   * its parts as one text, each part's length in bytes, and the values of the holes between them, in the order of
   * PHOTOGRAPHER_GRAPHQL_HOLES.
   */
  photographerText?: Uint8Array | string;
  photographerParts?: number[];
  photographerHoles?: (string | null)[];
};
export type ImageRow = TextDecimals<Image>;
export type PriorityTagRow = PriorityTag;
export type SimplePortfolioRow = SimplePortfolio;
export type LinkedAddOnRow = LinkedAddOn & { template: TextDecimals<AddOnTemplate> };

/** A photographer with everything the listing embeds of them. */
export type PhotographerProfile = TextDecimals<Photographer> & {
  review: TextDecimals<Review> | null;
  socials: (Social & { socialSite: SocialSite })[];
  coverImages: (PhotographerCoverImage & { image: ImageRow })[];
  calendarWorkDays: CalendarWorkDay[];
};
