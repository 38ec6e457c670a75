import { formatMicroTimestamp } from '../../v2/timestamp.js';
import { builder } from '../builder.js';
import { upTo } from '../limits.js';
import { privateField } from '../private-fields.js';
import { Image } from './image.js';
import { Node } from './node.js';
import { ClockTime, Location, parseClockTime, parseWorkTimes, WorkTimeRange } from './value-types.js';

const PRIVATE = 'Private: null without an API key that has the "private" scope.';

const rawJsonText = (what: string) =>
  `${what} as the exact stored JSON text (what the v2 listing emits byte for byte).`;

export const Review = builder.prismaObject('Review', {
  description: "Summary of a photographer's reviews.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Review summary id (UUID).' }),
    rating: t.field({
      type: 'Decimal',
      description: 'Average rating, 1 decimal.',
      resolve: (r) => r.rating,
    }),
    url: t.exposeString('url', { description: 'Absolute URL of the reviews page.' }),
    number: t.exposeInt('number', { description: 'Count of reviews.' }),
  }),
});

export const SocialSite = builder.prismaObject('SocialSite', {
  description: 'A social network (Instagram, Facebook, ...). Shared by every profile that links to it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Social site id (UUID).' }),
    name: t.exposeString('name', { description: 'Name of the site.' }),
    description: t.exposeString('description', { description: 'Description of the site.' }),
    icon: t.exposeString('icon', { description: 'Icon class names.' }),
  }),
});

export const Social = builder.prismaObject('Social', {
  description: "A link to the photographer's profile on a social site.",
  include: { socialSite: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Social link id (UUID).' }),
    url: t.exposeString('url', { description: 'Absolute URL of the profile.' }),
    socialSite: t.field({
      type: SocialSite,
      description: 'The site the link points to.',
      resolve: (s) => s.socialSite,
    }),
  }),
});

export const CalendarWorkDay = builder.prismaObject('CalendarWorkDay', {
  description: 'Working hours of one weekday.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Work day id (UUID).' }),
    workTimes: t.field({
      type: [WorkTimeRange],
      complexity: upTo(3),
      description: 'The stretches of working time that day.',
      resolve: (d) => parseWorkTimes(d.workTimes),
    }),
    workTimesJson: t.exposeString('workTimes', {
      description: rawJsonText(
        'The working time as [{"start":"900","end":"1700"}] (clock times as HHMM integers in strings),',
      ),
    }),
    day: t.exposeString('day', { description: 'English weekday name, Sunday to Saturday.' }),
    shortcut: t.exposeString('shortcut', { description: 'One-letter abbreviation of the day.' }),
    active: t.exposeBoolean('active', { description: 'Whether the day is worked.' }),
  }),
});

export const Photographer = builder.prismaObject('Photographer', {
  interfaces: [Node],
  description: 'The profile of a photographer who offers packages, as embedded in each of their packages.',
  // The shape the store delivers: the photographer with its embedded profile.
  include: {
    review: true,
    socials: { include: { socialSite: true } },
    coverImages: { include: { image: true } },
    calendarWorkDays: true,
  },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Photographer id (UUID).' }),
    name: t.exposeString('name', { description: "Person's name." }),
    login: t.exposeString('login', { nullable: true, description: 'Login name.' }),
    domain: t.exposeString('domain', { nullable: true, description: 'Host name of the booking site.' }),
    nextCustomDomain: t.exposeString('nextCustomDomain', {
      nullable: true,
      description: 'Host name of the next custom domain.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the profile was created, to the microsecond.',
      resolve: (p) => formatMicroTimestamp({ date: p.createdAt, micros: p.createdAtMicros }),
    }),
    displayImage: t.exposeString('displayImage', { nullable: true, description: 'Absolute URL of the display image.' }),
    companyImage: t.exposeString('companyImage', { nullable: true, description: 'Absolute URL of the company logo.' }),
    faviconImage: t.exposeString('faviconImage', { nullable: true, description: 'Absolute URL of the favicon.' }),
    companyName: t.exposeString('companyName', { description: 'Company name.' }),
    location: t.field({ type: Location, description: 'Where the photographer is based.', resolve: (p) => p }),
    calendars: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Calendar settings, parsed from calendarsJson (shape not specified).',
      resolve: (p) => (p.calendarsJson === null ? null : JSON.parse(p.calendarsJson)),
    }),
    calendarsJson: t.exposeString('calendarsJson', { nullable: true, description: rawJsonText('Calendar settings') }),
    review: t.field({
      type: Review,
      nullable: true,
      description: 'Review summary, when there is one.',
      resolve: (p) => p.review,
    }),
    currencyCode: t.exposeString('currencyCode', { description: 'Lower-case currency code, e.g. "usd".' }),
    currencySymbol: t.exposeString('currencySymbol', { description: 'Currency symbol, e.g. "$".' }),
    overrideCurrencyCode: t.exposeString('overrideCurrencyCode', {
      nullable: true,
      description: 'Currency code overriding currencyCode.',
    }),
    overrideCurrencySymbol: t.exposeString('overrideCurrencySymbol', {
      nullable: true,
      description: 'Currency symbol overriding currencySymbol.',
    }),
    paymentsOnboardCompleted: t.exposeBoolean('paymentsOnboardCompleted', {
      description: 'Whether payment onboarding is complete.',
    }),
    freePlusMarketplacePlan: t.exposeBoolean('freePlusMarketplacePlan', {
      description: 'Whether the photographer is on the free-plus-marketplace plan.',
    }),
    paymentsUserId: t.exposeString('paymentsUserId', {
      ...privateField,
      nullable: true,
      description: `Identifier of the photographer's account at a payment processor. ${PRIVATE}`,
    }),
    socials: t.field({
      type: [Social],
      complexity: upTo(5),
      description: 'Links to social sites, in display order.',
      resolve: (p) => p.socials,
    }),
    coverImages: t.field({
      type: [Image],
      complexity: upTo(5),
      description: 'Cover images, in display order.',
      resolve: (p) => p.coverImages.map((c) => c.image),
    }),
    phone: t.exposeString('phone', {
      ...privateField,
      nullable: true,
      description: `Phone number, digits only. ${PRIVATE}`,
    }),
    backgroundColor: t.exposeString('backgroundColor', { nullable: true, description: 'Background colour, hex.' }),
    displayFont: t.exposeString('displayFont', { nullable: true, description: 'Display font name.' }),
    secondaryFont: t.exposeString('secondaryFont', { nullable: true, description: 'Secondary font name.' }),
    fontColor: t.exposeString('fontColor', { nullable: true, description: 'Font colour, hex.' }),
    taxRate: t.field({ type: 'Decimal', description: 'Tax rate, 4 decimals.', resolve: (p) => p.taxRate }),
    startWorkTime: t.field({
      type: ClockTime,
      description: 'Start of the working day.',
      resolve: (p) => parseClockTime(p.startWorkTime),
    }),
    startWorkTimeJson: t.exposeString('startWorkTime', { description: rawJsonText('Start of the working day') }),
    endWorkTime: t.field({
      type: ClockTime,
      description: 'End of the working day (hour may be 24).',
      resolve: (p) => parseClockTime(p.endWorkTime),
    }),
    endWorkTimeJson: t.exposeString('endWorkTime', { description: rawJsonText('End of the working day') }),
    calendarWorkDays: t.field({
      type: [CalendarWorkDay],
      complexity: upTo(7),
      description: 'One entry per weekday, in the stored order (not necessarily Sunday first).',
      resolve: (p) => p.calendarWorkDays,
    }),
    crmOrganizationId: t.exposeString('crmOrganizationId', {
      ...privateField,
      nullable: true,
      description: `Organisation id in the CRM. ${PRIVATE}`,
    }),
    buffer: t.field({
      type: ClockTime,
      description: 'Buffer time between bookings.',
      resolve: (p) => parseClockTime(p.buffer),
    }),
    bufferJson: t.exposeString('buffer', { description: rawJsonText('Buffer time between bookings') }),
    isCreatorOnly: t.exposeBoolean('isCreatorOnly', { description: 'Whether the account is creator-only.' }),
    activeWebsite: t.exposeID('activeWebsite', { nullable: true, description: 'Id (UUID) of the active website.' }),
    designedByPlatform: t.exposeBoolean('designedByPlatform', {
      description: 'Whether the site was designed by the platform.',
    }),
    activeSubscriptionName: t.exposeString('activeSubscriptionName', {
      nullable: true,
      description: 'Name of the active plan.',
    }),
    planExternalWebsite: t.exposeBoolean('planExternalWebsite', {
      description: 'Whether the plan includes an external website.',
    }),
  }),
});
