// Photographers ("owners") and the platform-wide pools they draw on: profile, working hours, calendar days and
// the records their packages share.

import type {
  V2AddOnTemplate,
  V2CalendarWorkDay,
  V2Location,
  V2Photographer,
  V2PriorityTag,
  V2Review,
  V2SimplePortfolio,
  V2Social,
  V2SocialSite,
} from '../v2/records.js';
import { formatMicroTimestamp } from '../v2/timestamp.js';
import {
  type City,
  COMPANY_PATTERNS,
  CURATED,
  CURRENCIES,
  type Currency,
  localPrice,
  MARKETS,
  type Market,
} from './catalogue-markets.js';
import {
  ADD_ONS,
  CATEGORIES,
  type Category,
  CDN,
  COMPANY_EMOJI,
  FONTS,
  PLAN_NAMES,
  SITE_HOST,
  SOCIAL_SITES,
  TAG_NAMES,
  WEEKDAYS,
  type Weekday,
} from './catalogue-offers.js';
import { clockJson, decimal, deepFreeze, fill, hhmm, slugify } from './format.js';
import { makeImages } from './images.js';
import { howMany, type Mode, maybe, type Rng } from './random.js';
import { modeOf, PHOTOGRAPHER_SHOWCASE, type PhotographerCase } from './showcase.js';
import { BIO_TEMPLATES } from './text.js';

// ---------------------------------------------------------------------------------------------------------------
// Platform-wide pools, made once per run before any photographer.

interface SocialSiteEntry {
  site: V2SocialSite;
  profileUrl: (handle: string) => string;
}

interface Pools {
  socialSites: readonly SocialSiteEntry[];
  tags: readonly V2PriorityTag[];
}

export function makePools(rng: Rng): Pools {
  const socialSites = SOCIAL_SITES.map(({ name, icon, url }) => ({
    site: { identifier: rng.uuid(), name, description: `${name} profile`, icon },
    profileUrl: url,
  }));
  const tags = TAG_NAMES.map((tag) => ({ identifier: rng.uuid(), tag, priority: rng.int(1, 10) }));
  return deepFreeze({ socialSites, tags });
}

// ---------------------------------------------------------------------------------------------------------------
// Photographer ("owner") and what its packages draw on

export interface Owner {
  photographer: V2Photographer; // embedded as-is in each of its packages
  email: string;
  market: Market;
  /** What its packages, add-ons and deposits are priced in: the currency shoppers are shown them in. */
  currency: Currency;
  city: City;
  packageCount: number;
  specialties: Category[];
  addOns: V2AddOnTemplate[]; // shared by the owner's packages
  portfolio: V2SimplePortfolio[]; // shared by the owner's packages
  sharing: boolean; // every package links the first add-on, portfolio entry and tag
  pools: Pools;
}

interface Identity {
  name: string;
  first: string;
  last: string;
  company: string;
  market: Market;
}

function makeIdentity(rng: Rng, index: number): Identity {
  const curated = CURATED[index];
  const locale = curated?.locale ?? rng.weighted(MARKETS.map((m) => [m.locale, m.weight] as const));
  const market = MARKETS.find((m) => m.locale === locale) ?? (MARKETS[0] as Market);
  if (curated) return { ...curated, last: curated.name.split(' ')[1] ?? '', market };
  const faker = rng.locale(locale);
  const first = faker.person.firstName();
  const last = faker.person.lastName();
  const name = locale === 'jp' ? `${last} ${first}` : `${first} ${last}`;
  let company = fill(rng.pick(COMPANY_PATTERNS[locale]), { first, last }, false);
  if (rng.chance(0.05)) company += rng.pick(COMPANY_EMOJI);
  return { name, first, last, company, market };
}

export function makeOwner(rng: Rng, pools: Pools, index: number): Owner {
  const cases = PHOTOGRAPHER_SHOWCASE[index] ?? [];
  const mode = modeOf(cases);
  const who = makeIdentity(rng, index);
  const city = rng.pick(who.market.cities);
  const handle = slugify(who.company, 40) || slugify(who.name, 40) || `studio-${rng.int(1000, 99999)}`;
  const specialties = rng.some(CATEGORIES, 1, 3);
  const sharing = cases.includes('sharing') || rng.chance(0.25);
  const photographer = makePhotographer(rng, pools, { who, city, handle, mode, cases });
  const currency = effectiveCurrency(photographer, who.market);
  const addOns = rng.times(rng.int(1, 5), () => makeAddOn(rng, currency));
  const portfolio = rng.times(rng.int(1, 4), () => makePortfolio(rng, who, city, specialties));
  return deepFreeze({
    photographer,
    email: makeEmail(rng, who, handle),
    market: who.market,
    currency,
    city,
    // A sharing owner gets enough packages to share between even when its first one is a sparse showcase.
    packageCount: sharing ? rng.int(3, 8) : rng.weighted(PACKAGES_PER_OWNER),
    specialties,
    addOns,
    portfolio,
    sharing,
    pools,
  });
}

const PACKAGES_PER_OWNER = [
  [1, 15],
  [2, 20],
  [3, 20],
  [4, 15],
  [5, 12],
  [6, 8],
  [7, 6],
  [8, 4],
] as const;

function makeEmail(rng: Rng, who: Identity, handle: string): string {
  const local = slugify(who.name, 30).replace(/-/g, '.') || `hello${rng.int(1, 999)}`;
  const domain = rng.pick(['gmail.com', 'outlook.com', 'icloud.com', `${handle}.com`]);
  return `${local}@${domain}`;
}

/**
 * The currency a photographer's prices are shown in, the API's rule: the override where set, else its own. The
 * prices are made in it, so that a price labelled yen is yen-sized (the override is a choice of its own, not a
 * conversion: the listing records amounts only).
 */
function effectiveCurrency(photographer: V2Photographer, market: Market): Currency {
  const override = photographer.override_currency_code;
  return Object.values(CURRENCIES).find((c) => c.code === override) ?? market.currency;
}

interface PhotographerPlan {
  who: Identity;
  city: City;
  handle: string; // ASCII name for host names and social profiles
  mode: Mode;
  cases: readonly PhotographerCase[];
}

function makePhotographer(rng: Rng, pools: Pools, plan: PhotographerPlan): V2Photographer {
  const { who, city, handle, mode, cases } = plan;
  const { market } = who;
  const identifier = rng.uuid();
  const asset = (file: string) => `${CDN}/photographers/${identifier}/${file}`;
  const onboarded = rng.chance(0.8);
  const others = Object.values(CURRENCIES).filter((c) => c !== market.currency);
  const override = maybe(rng, mode, 0.9, () => rng.pick(others)); // shown instead of the own currency
  const hours = makeWorkHours(rng, cases.includes('endsAt24'));
  return {
    identifier,
    name: who.name,
    login: maybe(rng, mode, 0.1, () => slugify(who.name, 30).replace(/-/g, '.') || `user${rng.int(100, 99999)}`),
    domain: maybe(rng, mode, 0.15, () => `${handle}.${SITE_HOST}`),
    next_custom_domain: maybe(rng, mode, 0.7, () => `www.${handle}.${rng.pick(['com', 'photo', 'studio', 'co'])}`),
    created_at: makeCreatedAt(rng, cases.includes('wholeSecond')),
    display_image: maybe(rng, mode, 0.1, () => asset('avatar.jpg')),
    company_image: maybe(rng, mode, 0.3, () => asset('logo.png')),
    favicon_image: maybe(rng, mode, 0.5, () => asset('favicon.png')),
    company_name: who.company,
    location: makeLocation(rng, city, 40_000),
    calendars_json: maybe(rng, mode, 0.5, () => makeCalendarsJson(rng, who.name)),
    review: maybe(rng, mode, 0.3, () => makeReview(rng)),
    currency_code: market.currency.code,
    currency_symbol: market.currency.symbol,
    override_currency_code: override?.code ?? null,
    override_currency_symbol: override?.symbol ?? null,
    payments_onboard_completed: onboarded,
    free_plus_marketplace_plan: rng.chance(0.3),
    payments_user_id: onboarded ? `acct_${rng.alnum(16)}` : '',
    socials: makeSocials(rng, mode, handle, pools.socialSites),
    cover_image: makeImages(rng, mode, 0.5, 3),
    phone: maybe(rng, mode, 0.2, () => market.phonePrefix + rng.digits(9)),
    background_color: maybe(rng, mode, 0.4, () => rng.hexColour()),
    display_font: maybe(rng, mode, 0.35, () => rng.pick(FONTS)),
    secondary_font: maybe(rng, mode, 0.5, () => rng.pick(FONTS)),
    font_color: maybe(rng, mode, 0.4, () => rng.pick(['#222222', '#333', '#4a4a4a', '#1d2b3a', '#5C4033'])),
    tax_rate: decimal(rng.pick(market.taxRates), 4),
    start_work_time: clockJson(hours.startHour, hours.startMinute),
    end_work_time: clockJson(hours.endHour, hours.endMinute),
    calendar_work_days: makeWorkDays(rng, hours),
    crm_organization_id: maybe(rng, mode, 0.6, () => String(rng.int(100000, 9999999))),
    buffer: clockJson(rng.pick([0, 0, 0, 1]), rng.pick([0, 15, 30, 45])),
    is_creator_only: rng.chance(0.05),
    active_website: maybe(rng, mode, 0.2, () => rng.uuid()),
    designed_by_platform: rng.chance(0.15),
    active_subscription_name: maybe(rng, mode, 0.3, () => rng.pick(PLAN_NAMES)),
    plan_external_website: rng.chance(0.1),
  };
}

/** Between 2016 and mid-2024, with a random microsecond unless the time is a whole second. */
function makeCreatedAt(rng: Rng, wholeSecond: boolean): string {
  const seconds = rng.int(Date.UTC(2016, 0, 1) / 1000, Date.UTC(2024, 4, 31) / 1000);
  const micros = wholeSecond || rng.chance(0.05) ? 0 : rng.int(1, 999_999);
  return formatMicroTimestamp({ date: new Date(seconds * 1000), micros });
}

/** A city's coordinates moved up to `spread` micro-degrees each way. */
export function makeLocation(rng: Rng, city: City, spread: number): V2Location {
  const jitter = () => rng.int(-spread, spread);
  return {
    latitude: decimal(Math.round(city.lat * 1e6) + jitter(), 6),
    longitude: decimal(Math.round(city.lng * 1e6) + jitter(), 6),
    name: city.name,
  };
}

function makeCalendarsJson(rng: Rng, name: string): string {
  if (rng.chance(0.6)) return '[]';
  const calendar = { provider: rng.pick(['google', 'outlook', 'icloud']), name: `${name} – bookings`, sync: true };
  return JSON.stringify([calendar]);
}

function makeReview(rng: Rng): V2Review {
  return {
    identifier: rng.uuid(),
    rating: decimal(rng.int(35, 50), 1),
    url: `https://g.page/r/${rng.alnum(22)}/review`,
    number: rng.int(1, 480),
  };
}

function makeSocials(rng: Rng, mode: Mode, handle: string, sites: readonly SocialSiteEntry[]): V2Social[] {
  const n = howMany(rng, mode, 0.25, sites.length);
  return rng.some(sites, n, n).map(({ site, profileUrl }) => ({
    identifier: rng.uuid(),
    url: profileUrl(handle.replace(/-/g, '')),
    social_site: site, // the shared record
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Working hours and calendar days

interface WorkHours {
  startHour: number;
  startMinute: number;
  endHour: number; // 24 means midnight at the end of the day
  endMinute: number;
}

function makeWorkHours(rng: Rng, endsAt24: boolean): WorkHours {
  const startHour = rng.int(6, 10);
  const startMinute = rng.pick([0, 0, 30]);
  if (endsAt24 || rng.chance(0.05)) return { startHour, startMinute, endHour: 24, endMinute: 0 };
  return { startHour, startMinute, endHour: rng.int(16, 22), endMinute: rng.pick([0, 0, 30]) };
}

/** All seven days, in an order that varies between photographers (the spec fixes none). */
function makeWorkDays(rng: Rng, hours: WorkHours): V2CalendarWorkDay[] {
  const order = rng.weighted<readonly Weekday[]>([
    [WEEKDAYS, 4],
    [[...WEEKDAYS.slice(1), WEEKDAYS[0]], 3],
    [rng.shuffle(WEEKDAYS), 3],
  ]);
  const worksWeekends = rng.chance(0.6);
  return order.map(([day, shortcut]) => {
    const weekend = day === 'Saturday' || day === 'Sunday';
    const active = weekend ? worksWeekends : rng.chance(0.9);
    return { identifier: rng.uuid(), work_times: active ? makeWorkTimes(rng, hours) : '[]', day, shortcut, active };
  });
}

function makeWorkTimes(rng: Rng, h: WorkHours): string {
  const start = hhmm(h.startHour, h.startMinute);
  const end = hhmm(h.endHour, h.endMinute);
  const splitForLunch = h.startHour < 12 && h.endHour > 13 && rng.chance(0.2);
  const ranges = splitForLunch
    ? [
        { start, end: '1200' },
        { start: '1300', end },
      ]
    : [{ start, end }];
  return JSON.stringify(ranges);
}

// ---------------------------------------------------------------------------------------------------------------
// Records shared between packages

function makeAddOn(rng: Rng, currency: Currency): V2AddOnTemplate {
  const [name, usd, quantity] = rng.pick(ADD_ONS);
  return { identifier: rng.uuid(), name, price: decimal(localPrice(rng, usd, currency) * 100, 2), quantity };
}

function makePortfolio(rng: Rng, who: Identity, city: City, specialties: readonly Category[]): V2SimplePortfolio {
  const category = rng.pick(specialties);
  let bio = fill(
    rng.pick(BIO_TEMPLATES),
    {
      first: who.first,
      company: who.company,
      place: city.name,
      category: category.name.toLowerCase(),
      years: String(rng.int(2, 15)),
    },
    true,
  );
  if (rng.chance(0.01)) bio = bio.replace('</p><p>', '\u2029'); // pasted paragraph separator
  return { identifier: rng.uuid(), category: category.code, bio };
}

// ---------------------------------------------------------------------------------------------------------------
