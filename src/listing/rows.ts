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

export type PackageRow = TextDecimals<Package>;
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
