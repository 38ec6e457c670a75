import { type PackageLists, type PackageRow, Utf8Json } from '../../listing/rows.js';
import { builder } from '../builder.js';
import { upTo } from '../limits.js';
import { preparedPhotographer, wantsPreparedPhotographer } from '../prepared-photographers.js';
import { privateField } from '../private-fields.js';
import { reads } from '../projection.js';
import { LinkedAddOn } from './add-on.js';
import { Image } from './image.js';
import { Money, moneyOf, type Priced, useMoney } from './money.js';
import { Node } from './node.js';
import { Photographer } from './photographer.js';
import { PriorityTag, SimplePortfolio } from './tags.js';
import { Location } from './value-types.js';

/** What a package's read brought from the read model beside its columns (src/listing/store.ts). */
const prepared = (p: object) => p as Pick<PackageRow, 'lists' | 'v2Record'>;

/** The package's add-on links, each template carrying the package's currency (its price is in it). */
function linksInCurrency(links: PackageLists['linkedAddOns'], p: object): PackageLists['linkedAddOns'] {
  const { currencyCode, currencySymbol } = p as Priced;
  return links.map((link) => ({ ...link, template: { ...link.template, currencyCode, currencySymbol } }));
}

export const Package = builder.prismaObject('Package', {
  interfaces: [Node],
  description: 'A bookable photography package, with the profile of the photographer who offers it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Package id (UUID).' }),
    photographer: t.field({
      ...reads('photographerId'),
      type: Photographer,
      description: 'The photographer who offers the package.',
      resolve: async (p, _args, ctx, info) => {
        if (wantsPreparedPhotographer(info)) return preparedPhotographer(p, ctx, info);
        const photographer = await ctx.loaders.photographer.load(p.photographerId);
        if (!photographer) throw new Error(`photographer ${p.photographerId} of package ${p.id} is missing`);
        return photographer;
      },
    }),
    activeWebsite: t.exposeID('activeWebsite', { nullable: true, description: 'Website id (UUID).' }),
    title: t.exposeString('title', { description: 'Package title.' }),
    portraitImage: t.exposeString('portraitImage', {
      nullable: true,
      description: 'Absolute URL of the portrait-format image.',
    }),
    landscapeImage: t.exposeString('landscapeImage', {
      nullable: true,
      description:
        'Absolute URL of the landscape-format image: the full-size original, as the listing gives it (null where it has none). For a card, ask for cardImage: a card-sized file with its width, height and alt text, and an image wherever the package has one.',
    }),
    category: t.exposeInt('category', { description: 'Category code.' }),
    categoryName: t.exposeString('categoryName', { description: 'Category label.' }),
    priorityTags: t.field({
      ...reads('id', 'lists'),
      type: [PriorityTag],
      complexity: upTo(10),
      description: 'Tags, in display order.',
      resolve: (p, _args, ctx) => prepared(p).lists?.priorityTags ?? ctx.loaders.priorityTags.load(p.id),
    }),
    tagKeywords: t.exposeString('tagKeywords', {
      description: 'Comma-joined tag names with a trailing comma; empty string when none.',
    }),
    hoursOfCoverage: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Hours of coverage, 3 decimals.',
      resolve: (p) => p.hoursOfCoverage,
    }),
    numberOfPhotosMin: t.exposeInt('numberOfPhotosMin', { nullable: true, description: 'Fewest photos delivered.' }),
    numberOfPhotosMax: t.exposeInt('numberOfPhotosMax', { nullable: true, description: 'Most photos delivered.' }),
    daysToDelivery: t.exposeInt('daysToDelivery', {
      nullable: true,
      description: 'Days until the photos are delivered.',
    }),
    licenseType: t.exposeInt('licenseType', { description: 'License type code.' }),
    description: t.exposeString('description', { description: 'Description, HTML markup.' }),
    whatsIncluded: t.exposeString('whatsIncluded', { description: "What's included, HTML markup." }),
    whatToExpect: t.exposeString('whatToExpect', { description: 'What to expect, HTML markup.' }),
    price: t.field({
      type: 'Decimal',
      description: 'Price, 2 decimals, in the currency of priceMoney.',
      deprecationReason: useMoney('priceMoney'),
      resolve: (p) => p.price,
    }),
    priceMoney: t.field({
      ...reads('price', 'currency'),
      type: Money,
      description:
        "The price with its currency: the photographer's override currency where set, else the photographer's own.",
      resolve: (p) => moneyOf(p.price, p),
    }),
    paymentSchedule: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Payment schedule value, 9 decimals. Never set together with depositFraction.',
      resolve: (p) => p.paymentSchedule,
    }),
    depositFraction: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Share of the price due as deposit, 9 decimals. Never set together with paymentSchedule.',
      resolve: (p) => p.depositFraction,
    }),
    deposit: t.field({
      type: 'Decimal',
      description: 'Deposit amount, 2 decimals, in the currency of depositMoney.',
      deprecationReason: useMoney('depositMoney'),
      resolve: (p) => p.deposit,
    }),
    depositMoney: t.field({
      ...reads('deposit', 'currency'),
      type: Money,
      description: 'The deposit amount with its currency, the currency of priceMoney.',
      resolve: (p) => moneyOf(p.deposit, p),
    }),
    faqs: t.field({
      type: ['JSON'],
      complexity: upTo(10),
      nullable: { list: false, items: true },
      description: 'Frequently asked questions; the item shape is not specified, so items are given as stored.',
      resolve: (p) => (Array.isArray(p.faqs) ? p.faqs : []),
    }),
    cancellationPolicy: t.exposeString('cancellationPolicy', {
      nullable: true,
      description: 'Cancellation policy, plain text; may hold line breaks.',
    }),
    extensionPolicy: t.exposeString('extensionPolicy', {
      nullable: true,
      description: 'Extension policy, plain text.',
    }),
    weatherPolicy: t.exposeString('weatherPolicy', { nullable: true, description: 'Weather policy, plain text.' }),
    licensePolicy: t.exposeString('licensePolicy', { nullable: true, description: 'License policy, plain text.' }),
    weeksAvailable: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Weeks available (only null appears in the listing).',
      resolve: (p) => p.weeksAvailable,
    }),
    paymentSchedulePolicy: t.exposeString('paymentSchedulePolicy', {
      nullable: true,
      description: 'Payment schedule policy; may be the empty string.',
    }),
    addOnsPolicy: t.exposeString('addOnsPolicy', { nullable: true, description: 'Add-ons policy, plain text.' }),
    photoUploaded: t.exposeBoolean('photoUploaded', { description: 'Whether a photo has been uploaded.' }),
    location: t.field({
      ...reads('latitude', 'longitude', 'locationName'),
      type: Location,
      description: 'Where the package takes place.',
      resolve: (p) => p,
    }),
    images: t.field({
      ...reads('id', 'lists'),
      type: [Image],
      complexity: upTo(10),
      description: 'Images of the package, in display order.',
      resolve: (p, _args, ctx) => prepared(p).lists?.images ?? ctx.loaders.packageImages.load(p.id),
    }),
    status: t.exposeInt('status', { description: 'Status code; 1 on listed packages.' }),
    photographerEmail: t.exposeString('photographerEmail', {
      ...privateField,
      nullable: true,
      description:
        'Contact e-mail address of the photographer. Private: null without an API key that has the "private" scope.',
    }),
    contractTemplate: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Contract template (only null appears).',
      resolve: (p) => p.contractTemplate,
    }),
    questionnaireTemplate: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Questionnaire template (only null appears).',
      resolve: (p) => p.questionnaireTemplate,
    }),
    featured: t.exposeBoolean('featured', { description: 'Whether the package is featured.' }),
    startingAt: t.exposeBoolean('startingAt', { description: 'Whether the price is a "starting at" price.' }),
    simplePortfolio: t.field({
      ...reads('id', 'lists'),
      type: [SimplePortfolio],
      complexity: upTo(5),
      description: 'Portfolio entries shown with the package, in display order.',
      resolve: (p, _args, ctx) => prepared(p).lists?.simplePortfolio ?? ctx.loaders.simplePortfolio.load(p.id),
    }),
    backgroundColor: t.exposeString('backgroundColor', { nullable: true, description: 'Background colour.' }),
    placeholderMessage: t.exposeString('placeholderMessage', { description: 'Placeholder message; may be empty.' }),
    miniSessions: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Mini sessions (only null appears).',
      resolve: (p) => p.miniSessions,
    }),
    videoUrl: t.exposeString('videoUrl', { description: 'Video URL; empty string when none.' }),
    showCalendar: t.exposeBoolean('showCalendar', { description: 'Whether the booking calendar is shown.' }),
    useTimePicker: t.exposeBoolean('useTimePicker', { description: 'Whether a time picker is used when booking.' }),
    linkedAddOns: t.field({
      ...reads('id', 'lists', 'currency'),
      type: [LinkedAddOn],
      complexity: upTo(5),
      description: 'Add-ons offered with the package, in display order.',
      resolve: async (p, _args, ctx) =>
        linksInCurrency(prepared(p).lists?.linkedAddOns ?? (await ctx.loaders.linkedAddOns.load(p.id)), p),
    }),
    urlSlug: t.exposeString('urlSlug', { description: 'URL slug, unique.' }),
    featuredPosition: t.exposeInt('featuredPosition', {
      nullable: true,
      description: 'Position among featured packages.',
    }),
    showOnMarketplace: t.exposeBoolean('showOnMarketplace', {
      description: 'Whether the package shows on the marketplace.',
    }),
    hideFromExplore: t.exposeBoolean('hideFromExplore', { description: 'Whether the package is hidden from explore.' }),
    collectionItemId: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Collection item id (only null appears).',
      resolve: (p) => p.collectionItemId,
    }),
    instantBooking: t.exposeBoolean('instantBooking', { description: 'Whether the package can be booked instantly.' }),
    v2Record: t.field({
      ...reads('v2Record'),
      ...privateField,
      type: 'JSONText',
      nullable: true,
      description:
        'The package as the legacy v2 listing (GET /v2/local-package-list/) renders it: its record as JSON text, byte for byte, private fields included. Private: null without an API key that has the "private" scope.',
      resolve: (p) => {
        // Every read that the projection sends for this field brings it (src/listing/store.ts).
        const { v2Record } = prepared(p);
        if (v2Record === undefined) throw new Error(`package ${p.id} was read without its v2 record`);
        return new Utf8Json(v2Record);
      },
    }),
  }),
});
