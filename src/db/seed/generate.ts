// Deterministic demo data: v2 Package records of a photography marketplace, streamed one at a time.
//
// Photographers are made one after another, each owning 1 to 8 consecutive packages, from one seeded random
// stream. Nothing depends on `count`, so the first N records are the same whatever count is asked for.
// Records that share an identifier (the embedded photographer, add-on templates, social sites, priority tags,
// portfolio entries) are the very same frozen object wherever they appear, so their content cannot differ.
//
// The first photographers and packages are "showcases" that force the rare cases (all-null, all-filled,
// hour 24, whole-second timestamps, ...), so even a small set holds every edge; later records get them by chance.

import {
  base,
  de,
  en,
  en_AU,
  en_CA,
  en_GB,
  en_US,
  es_MX,
  Faker,
  fr,
  generateMersenne53Randomizer,
  ja,
  type LocaleDefinition,
  pl,
  pt_BR,
  type Randomizer,
} from '@faker-js/faker';
import type {
  V2AddOnTemplate,
  V2CalendarWorkDay,
  V2Image,
  V2LinkedAddOn,
  V2Location,
  V2Package,
  V2Photographer,
  V2PriorityTag,
  V2Review,
  V2SimplePortfolio,
  V2Social,
  V2SocialSite,
} from '../../v2/records.js';

export interface GenerateOptions {
  count: number;
  /** An integer from 0 to 2^32 - 1 (the randomizer's seed width); default DEFAULT_SEED (20240601). */
  seed?: number;
}

export const DEFAULT_SEED = 20240601;

export function* generatePackages(options: GenerateOptions): Generator<V2Package> {
  const { count, seed = DEFAULT_SEED } = options;
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer from 0 to 4294967295: ${seed}`);
  }
  const rng = new Rng(seed);
  const pools = makePools(rng); // made first, so their draws never depend on count
  let produced = 0;
  for (let p = 0; produced < count; p++) {
    const owner = makeOwner(rng, pools, p);
    for (let n = 0; n < owner.packageCount && produced < count; n++) {
      yield makePackage(rng, owner, produced, n);
      produced++;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Randomness: one randomizer shared by a Faker instance per market locale, seeded once.

type MarketLocale = 'us' | 'gb' | 'ca' | 'au' | 'de' | 'fr' | 'pl' | 'jp' | 'br' | 'mx';

const LOCALE_CHAINS: Record<MarketLocale, LocaleDefinition[]> = {
  us: [en_US, en, base],
  gb: [en_GB, en, base],
  ca: [en_CA, en, base],
  au: [en_AU, en, base],
  de: [de, en, base],
  fr: [fr, en, base],
  pl: [pl, en, base],
  jp: [ja, en, base],
  br: [pt_BR, en, base],
  mx: [es_MX, en, base],
};

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The seeded random source. Names come from Faker instances, one per market locale, that share one randomizer
 * seeded through faker.seed(). The small draws below read that randomizer directly: faker's option-object calls
 * cost several times more, and 100,000 records take tens of millions of draws.
 */
class Rng {
  private readonly randomizer: Randomizer;
  private readonly fakers = new Map<MarketLocale, Faker>();

  constructor(seed: number) {
    this.randomizer = generateMersenne53Randomizer();
    for (const [key, locale] of Object.entries(LOCALE_CHAINS)) {
      this.fakers.set(key as MarketLocale, new Faker({ locale, randomizer: this.randomizer }));
    }
    this.locale('us').seed(seed); // seeds the shared randomizer, hence every instance
  }

  locale(key: MarketLocale): Faker {
    const faker = this.fakers.get(key);
    if (!faker) throw new Error(`no faker for locale ${key}`);
    return faker;
  }

  /** An integer from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.randomizer.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.randomizer.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `min`..`max` distinct items, kept in their catalogue order (selection sampling, Knuth's algorithm S). */
  some<T>(items: readonly T[], min: number, max: number): T[] {
    let wanted = this.int(Math.min(min, items.length), Math.min(max, items.length));
    const chosen: T[] = [];
    for (let i = 0; wanted > 0; i++) {
      if (this.randomizer.next() * (items.length - i) < wanted) {
        chosen.push(items[i] as T);
        wanted--;
      }
    }
    return chosen;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const swap = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = swap;
    }
    return copy;
  }

  /** `count` results of `make`, which gets the position. */
  times<T>(count: number, make: (i: number) => T): T[] {
    const results: T[] = [];
    for (let i = 0; i < count; i++) results.push(make(i));
    return results;
  }

  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.randomizer.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return this.pick(entries)[0]; // not reached unless rounding leaves a sliver
  }

  /** A lower-case v4 UUID from four 32-bit draws. */
  uuid(): string {
    const a = this.hex32();
    const b = this.hex32();
    const c = this.hex32();
    // Version 4 in the 13th digit, the RFC 4122 variant (8, 9, a or b) in the 17th.
    const version = `4${b.slice(5, 8)}`;
    const variant = `${'89ab'[this.int(0, 3)]}${c.slice(1, 4)}`;
    return `${a}-${b.slice(0, 4)}-${version}-${variant}-${c.slice(4)}${this.hex32()}`;
  }

  /** Eight hex digits. */
  private hex32(): string {
    const word = this.int(0, 0xffffffff);
    return (
      (HEX_BYTES[word >>> 24] as string) +
      HEX_BYTES[(word >>> 16) & 0xff] +
      HEX_BYTES[(word >>> 8) & 0xff] +
      HEX_BYTES[word & 0xff]
    );
  }

  alnum(length: number): string {
    let text = '';
    for (let i = 0; i < length; i++) text += ALNUM[this.int(0, ALNUM.length - 1)];
    return text;
  }

  /** Digits, the first one not 0. */
  digits(length: number): string {
    let text = String(this.int(1, 9));
    for (let i = 1; i < length; i++) text += String(this.int(0, 9));
    return text;
  }

  hexColour(): string {
    return `#${this.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
  }
}

/** sparse: every nullable field null and every array empty; rich: all filled; random: by chance. */
type Mode = 'sparse' | 'rich' | 'random';

function maybe<T>(rng: Rng, mode: Mode, nullChance: number, make: () => T): T | null {
  if (mode === 'sparse') return null;
  if (mode === 'rich' || !rng.chance(nullChance)) return make();
  return null;
}

/** How many items an array gets: 0 when sparse, at least `richMin` when rich. */
function howMany(rng: Rng, mode: Mode, emptyChance: number, max: number, richMin = 1): number {
  if (mode === 'sparse' || max === 0) return 0;
  if (mode === 'rich') return rng.int(Math.min(richMin, max), max);
  return rng.chance(emptyChance) ? 0 : rng.int(1, max);
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

/** An integer count of 10^-places units as a decimal string: decimal(150000, 2) is "1500.00". */
function decimal(units: number, places: number): string {
  const digits = String(Math.abs(Math.round(units))).padStart(places + 1, '0');
  return `${units < 0 ? '-' : ''}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** DRF's form: six fraction digits, left out entirely when the microseconds are 0. */
function timestamp(epochSeconds: number, micros: number): string {
  const seconds = new Date(epochSeconds * 1000).toISOString().slice(0, 19);
  return micros === 0 ? `${seconds}Z` : `${seconds}.${String(micros).padStart(6, '0')}Z`;
}

const clockJson = (hour: number, minute: number) => JSON.stringify({ hour, minute });

/** HHMM without leading zero, as the work_times strings carry it: 9:00 is "900", 0:30 is "30". */
const hhmm = (hour: number, minute: number) => String(hour * 100 + minute);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeHtml = (text: string) =>
  /[&<>"]/.test(text) ? text.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c] ?? c) : text;

const TRANSLITERATIONS: Record<string, string> = { ł: 'l', ø: 'o', ß: 'ss', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th' };

/** ASCII slug; letters without a Latin form (kana, kanji, emoji) drop out, so the result may be ''. */
function slugify(text: string, maxLength = 48): string {
  return text
    .toLowerCase()
    .replace(/[łøßæœđðþ]/g, (c) => TRANSLITERATIONS[c] ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents split off by NFKD
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, maxLength)
    .replace(/^-+|-+$/g, '');
}

const templateParts = new Map<string, string[]>();

/** Fills {name} placeholders; values are HTML-escaped when the template is HTML. */
function fill(template: string, values: Record<string, string>, html: boolean): string {
  let parts = templateParts.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/); // text, key, text, key, ..., text
    templateParts.set(template, parts);
  }
  let text = parts[0] ?? '';
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i] as string;
    const value = values[key] ?? `{${key}}`;
    text += (html ? escapeHtml(value) : value) + parts[i + 1];
  }
  return text;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Catalogues

interface Category {
  code: number;
  name: string;
  sessions: readonly string[];
  noun: string; // for sentences: "your {noun}"
  price: readonly [number, number]; // in USD
  hours: readonly [number, number]; // coverage, in quarter hours
  photos: readonly [number, number];
}

const CATEGORIES: readonly Category[] = [
  {
    code: 1,
    name: 'Weddings',
    sessions: ['Wedding Collection', 'Full-Day Wedding Coverage', 'Intimate Wedding Package', 'Wedding Story'],
    noun: 'wedding day',
    price: [1800, 7500],
    hours: [16, 48],
    photos: [300, 900],
  },
  {
    code: 2,
    name: 'Engagements',
    sessions: ['Engagement Session', 'Couples Session', 'Proposal Coverage'],
    noun: 'engagement session',
    price: [250, 900],
    hours: [4, 8],
    photos: [40, 150],
  },
  {
    code: 3,
    name: 'Portraits',
    sessions: ['Portrait Session', 'Personal Branding Session', 'Senior Portraits'],
    noun: 'portrait session',
    price: [150, 700],
    hours: [2, 8],
    photos: [15, 80],
  },
  {
    code: 4,
    name: 'Family',
    sessions: ['Family Session', 'Extended Family Portraits', 'Lifestyle Family Session'],
    noun: 'family session',
    price: [200, 850],
    hours: [2, 8],
    photos: [30, 120],
  },
  {
    code: 5,
    name: 'Newborn',
    sessions: ['Newborn Session', 'Fresh 48 Session', 'In-Home Newborn Session'],
    noun: 'newborn session',
    price: [300, 1100],
    hours: [6, 16],
    photos: [20, 60],
  },
  {
    code: 6,
    name: 'Maternity',
    sessions: ['Maternity Session', 'Bump & Bloom Portraits'],
    noun: 'maternity session',
    price: [200, 750],
    hours: [3, 8],
    photos: [20, 70],
  },
  {
    code: 7,
    name: 'Events',
    sessions: ['Event Coverage', 'Corporate Event Package', 'Birthday Party Coverage', 'Gala & Awards Night'],
    noun: 'event',
    price: [400, 3500],
    hours: [8, 32],
    photos: [100, 600],
  },
  {
    code: 8,
    name: 'Headshots',
    sessions: ['Professional Headshots', 'Team Headshot Day', 'Actor Headshots'],
    noun: 'headshot session',
    price: [120, 600],
    hours: [1, 6],
    photos: [5, 40],
  },
  {
    code: 9,
    name: 'Elopements',
    sessions: ['Elopement Package', 'Adventure Elopement', 'Courthouse Wedding'],
    noun: 'elopement',
    price: [900, 4500],
    hours: [6, 32],
    photos: [150, 500],
  },
  {
    code: 10,
    name: 'Real Estate',
    sessions: ['Listing Photos', 'Twilight Real Estate Shoot', 'Airbnb Photo Package'],
    noun: 'property shoot',
    price: [150, 900],
    hours: [4, 12],
    photos: [20, 60],
  },
  {
    code: 11,
    name: 'Product',
    sessions: ['Product Photography', 'E-commerce Flat Lays', 'Lifestyle Product Shoot'],
    noun: 'product shoot',
    price: [250, 2400],
    hours: [4, 24],
    photos: [10, 80],
  },
  {
    code: 12,
    name: 'Pets',
    sessions: ['Pet Portraits', 'Dog Adventure Session', 'Furry Family Session'],
    noun: 'pet session',
    price: [150, 600],
    hours: [2, 6],
    photos: [15, 60],
  },
];

const TITLE_MODIFIERS = [
  'Golden Hour',
  'Sunset',
  'Classic',
  'Signature',
  'Essential',
  'Deluxe',
  'Mini',
  'Luxe',
  'Downtown',
  'Beach',
  'Garden',
  'Winter Wonderland',
  'Cherry Blossom',
  'Documentary',
  'Timeless',
  'Boho',
  'Urban',
  'Sunrise',
  'Storybook',
  'Editorial',
] as const;

interface Currency {
  code: string;
  symbol: string;
  perUsd: number; // rough exchange rate, to make prices look local
  step: number; // prices are rounded to this many whole units
}

const CURRENCIES = {
  usd: { code: 'usd', symbol: '$', perUsd: 1, step: 5 },
  gbp: { code: 'gbp', symbol: '£', perUsd: 0.8, step: 5 },
  eur: { code: 'eur', symbol: '€', perUsd: 0.92, step: 5 },
  pln: { code: 'pln', symbol: 'zł', perUsd: 4, step: 10 },
  jpy: { code: 'jpy', symbol: '¥', perUsd: 150, step: 1000 },
  cad: { code: 'cad', symbol: 'CA$', perUsd: 1.35, step: 5 },
  aud: { code: 'aud', symbol: 'A$', perUsd: 1.5, step: 5 },
  brl: { code: 'brl', symbol: 'R$', perUsd: 5, step: 10 },
  mxn: { code: 'mxn', symbol: 'MX$', perUsd: 17, step: 50 },
} as const satisfies Record<string, Currency>;

interface City {
  name: string; // place label
  lat: number;
  lng: number;
}

interface Market {
  locale: MarketLocale;
  weight: number;
  currency: Currency;
  phonePrefix: string;
  taxRates: readonly number[]; // in 1/10000
  cities: readonly City[];
}

const MARKETS: readonly Market[] = [
  {
    locale: 'us',
    weight: 40,
    currency: CURRENCIES.usd,
    phonePrefix: '1',
    taxRates: [0, 600, 725, 825, 888],
    cities: [
      { name: 'Austin, TX', lat: 30.267153, lng: -97.743061 },
      { name: 'Brooklyn, NY', lat: 40.678178, lng: -73.944158 },
      { name: 'San Diego, CA', lat: 32.715738, lng: -117.161084 },
      { name: 'Nashville, TN', lat: 36.162664, lng: -86.781602 },
      { name: 'Denver, CO', lat: 39.739236, lng: -104.990251 },
      { name: 'Seattle, WA', lat: 47.606209, lng: -122.332071 },
      { name: 'Chicago, IL', lat: 41.878114, lng: -87.629798 },
      { name: 'Charleston, SC', lat: 32.776475, lng: -79.931051 },
      { name: 'Savannah, GA', lat: 32.080899, lng: -81.091203 },
      { name: 'Honolulu, HI', lat: 21.306944, lng: -157.858333 },
    ],
  },
  {
    locale: 'gb',
    weight: 8,
    currency: CURRENCIES.gbp,
    phonePrefix: '44',
    taxRates: [0, 2000],
    cities: [
      { name: 'London, UK', lat: 51.507351, lng: -0.127758 },
      { name: 'Edinburgh, UK', lat: 55.953252, lng: -3.188267 },
      { name: 'Bath, UK', lat: 51.375801, lng: -2.359904 },
      { name: 'Manchester, UK', lat: 53.480759, lng: -2.242631 },
    ],
  },
  {
    locale: 'ca',
    weight: 7,
    currency: CURRENCIES.cad,
    phonePrefix: '1',
    taxRates: [500, 1300, 1500],
    cities: [
      { name: 'Toronto, ON', lat: 43.653226, lng: -79.383184 },
      { name: 'Montréal, QC', lat: 45.501689, lng: -73.567256 },
      { name: 'Vancouver, BC', lat: 49.282729, lng: -123.120738 },
    ],
  },
  {
    locale: 'au',
    weight: 6,
    currency: CURRENCIES.aud,
    phonePrefix: '61',
    taxRates: [0, 1000],
    cities: [
      { name: 'Sydney, NSW', lat: -33.86882, lng: 151.209296 },
      { name: 'Melbourne, VIC', lat: -37.813628, lng: 144.963058 },
      { name: 'Byron Bay, NSW', lat: -28.647439, lng: 153.60196 },
    ],
  },
  {
    locale: 'de',
    weight: 8,
    currency: CURRENCIES.eur,
    phonePrefix: '49',
    taxRates: [1900, 700, 0],
    cities: [
      { name: 'München, Deutschland', lat: 48.135125, lng: 11.581981 },
      { name: 'Berlin, Deutschland', lat: 52.520007, lng: 13.404954 },
      { name: 'Hamburg, Deutschland', lat: 53.551085, lng: 9.993682 },
      { name: 'Köln, Deutschland', lat: 50.937531, lng: 6.960279 },
    ],
  },
  {
    locale: 'fr',
    weight: 7,
    currency: CURRENCIES.eur,
    phonePrefix: '33',
    taxRates: [2000, 0],
    cities: [
      { name: 'Paris, France', lat: 48.856614, lng: 2.352222 },
      { name: 'Lyon, France', lat: 45.764043, lng: 4.835659 },
      { name: 'Bordeaux, France', lat: 44.837789, lng: -0.57918 },
      { name: 'Nice, Côte d’Azur', lat: 43.710173, lng: 7.261953 },
    ],
  },
  {
    locale: 'pl',
    weight: 6,
    currency: CURRENCIES.pln,
    phonePrefix: '48',
    taxRates: [2300, 800],
    cities: [
      { name: 'Kraków, Polska', lat: 50.06465, lng: 19.94498 },
      { name: 'Warszawa, Polska', lat: 52.229676, lng: 21.012229 },
      { name: 'Gdańsk, Polska', lat: 54.352025, lng: 18.646638 },
      { name: 'Wrocław, Polska', lat: 51.107885, lng: 17.038538 },
    ],
  },
  {
    locale: 'jp',
    weight: 6,
    currency: CURRENCIES.jpy,
    phonePrefix: '81',
    taxRates: [1000, 800],
    cities: [
      { name: '東京都渋谷区', lat: 35.661777, lng: 139.704051 },
      { name: '京都市', lat: 35.011636, lng: 135.768029 },
      { name: '大阪市', lat: 34.693738, lng: 135.502165 },
      { name: 'Sapporo, Hokkaidō', lat: 43.062096, lng: 141.354376 },
    ],
  },
  {
    locale: 'br',
    weight: 6,
    currency: CURRENCIES.brl,
    phonePrefix: '55',
    taxRates: [0, 500],
    cities: [
      { name: 'São Paulo, SP', lat: -23.55052, lng: -46.633309 },
      { name: 'Rio de Janeiro, RJ', lat: -22.906847, lng: -43.172896 },
      { name: 'Florianópolis, SC', lat: -27.595378, lng: -48.54805 },
    ],
  },
  {
    locale: 'mx',
    weight: 6,
    currency: CURRENCIES.mxn,
    phonePrefix: '52',
    taxRates: [1600],
    cities: [
      { name: 'Ciudad de México, CDMX', lat: 19.432608, lng: -99.133208 },
      { name: 'Oaxaca, Oax.', lat: 17.073185, lng: -96.726588 },
      { name: 'Tulum, Q.R.', lat: 20.211419, lng: -87.46535 },
    ],
  },
];

const ALL_CITIES: readonly City[] = MARKETS.flatMap((market) => market.cities);

/** How a company name is built from the owner's name, per locale; `{last}` and `{first}` are filled in. */
const COMPANY_PATTERNS: Record<MarketLocale, readonly string[]> = {
  us: [
    '{last} Photography',
    '{first} {last} Photo Co.',
    'Salt & Pine Studio',
    '{first} Captures',
    'Golden Hour Collective',
  ],
  gb: ['{last} Photography', '{first} & Co. Photography', 'Wild Hearts Studio', '{first} {last} Photographic'],
  ca: ['{last} Photography', 'North Shore Studio', '{first} {last} Photo'],
  au: ['{last} Photography', 'Saltwater & Sun Photo', '{first} {last} Images'],
  de: ['{last} Fotografie', 'Fotostudio {last}', '{first} {last} Hochzeitsfotografie'],
  fr: ['{first} {last} Photographie', 'Atelier {last}', 'Studio Lumière {last}'],
  pl: ['{last} Fotografia', 'Studio {first}', '{first} {last} Fotografia Ślubna'],
  jp: ['{last}写真スタジオ', 'フォトスタジオ {last}', '{last} Photo Works'],
  br: ['{first} {last} Fotografia', 'Estúdio {last}', '{last} Fotos'],
  mx: ['{last} Fotografía', 'Estudio {first}', '{first} {last} Foto & Video'],
};

interface Curated {
  name: string;
  first: string;
  company: string;
  locale: MarketLocale;
}

/** Hand-picked identities for the first photographers: non-ASCII, emoji, quotes and ampersands in names. */
const CURATED: Readonly<Record<number, Curated>> = {
  2: { name: 'Zoë Łukasiewicz', first: 'Zoë', company: 'Zoë Łukasiewicz Fotografia', locale: 'pl' },
  3: { name: 'Jürgen Müller', first: 'Jürgen', company: 'Müller & Söhne "Lichtbild" Fotografie', locale: 'de' },
  4: { name: '佐藤 花子', first: '花子', company: '写真スタジオ 光 📸', locale: 'jp' },
  5: { name: 'Luna Ríos 🌙', first: 'Luna', company: "Luna's Fotografía ✨", locale: 'mx' },
};

const COMPANY_EMOJI = [' 📸', ' ✨', ' 🌿', ' 💍', ' 📷'] as const;

const FONTS = [
  'Playfair Display',
  'Montserrat',
  'Lora',
  'Cormorant Garamond',
  'Raleway',
  'Josefin Sans',
  'Libre Baskerville',
  'Poppins',
] as const;

const PLAN_NAMES = ['Basic', 'Pro', 'Studio', 'Marketplace Plus', 'Pro (Annual)'] as const;

const SOCIAL_SITES = [
  { name: 'Instagram', icon: 'fab fa-instagram', url: (h: string) => `https://www.instagram.com/${h}/` },
  { name: 'Facebook', icon: 'fab fa-facebook-f', url: (h: string) => `https://www.facebook.com/${h}` },
  { name: 'Pinterest', icon: 'fab fa-pinterest-p', url: (h: string) => `https://www.pinterest.com/${h}/` },
  { name: 'TikTok', icon: 'fab fa-tiktok', url: (h: string) => `https://www.tiktok.com/@${h}` },
  { name: 'YouTube', icon: 'fab fa-youtube', url: (h: string) => `https://www.youtube.com/@${h}` },
] as const;

/** Platform-wide tags; names never hold a comma (tag_keywords joins them with commas). */
const TAG_NAMES = [
  'Golden Hour',
  'Outdoor',
  'Studio',
  'Drone',
  'Same-Day Edits',
  'Black & White',
  'Film',
  'LGBTQ+ Friendly',
  'Pet Friendly',
  'Travel Included',
  'Bilingual',
  'Candid',
  'Luxury',
  'Budget Friendly',
  'Mini Session',
  'Holiday',
  'Beach',
  'Mountains',
  'Urban',
  'Fine Art',
  'Second Shooter',
  'Album Included',
  'Rush Delivery',
  'Sunrise',
] as const;

const ADD_ONS = [
  ['Extra Hour of Coverage', 250, 1],
  ['Second Photographer', 450, 1],
  ['Rush Delivery (48 hours)', 150, 1],
  ['Fine Art Album 10×10"', 600, 1],
  ['Drone Coverage', 300, 1],
  ['Hair & Makeup Artist', 220, 1],
  ['Additional Location', 120, 1],
  ['Printed USB Box', 95, 1],
  ['Engagement Mini Session', 350, 1],
  ['Canvas Print 16×20"', 180, 1],
  ['Parent Albums (pair)', 400, 2],
  ['Extra Edited Images (set of 10)', 75, 10],
] as const;

const WEEKDAYS = [
  ['Sunday', 'S'],
  ['Monday', 'M'],
  ['Tuesday', 'T'],
  ['Wednesday', 'W'],
  ['Thursday', 'T'],
  ['Friday', 'F'],
  ['Saturday', 'S'],
] as const;

type Weekday = (typeof WEEKDAYS)[number];

// Image sizes in pixels, as cameras and phones produce them.
const IMAGE_SIZES = [
  [6000, 4000],
  [4000, 6000],
  [5472, 3648],
  [3648, 5472],
  [8256, 5504],
  [4032, 3024],
  [3024, 4032],
  [2048, 1365],
  [1365, 2048],
  [3840, 2160],
  [2400, 2400],
] as const;

const CDN = 'https://cdn.snapbook-media.net';
const SITE_HOST = 'snapbook.site';

// ---------------------------------------------------------------------------------------------------------------
// Text banks. HTML banks hold markup and entities; {placeholders} are filled with escaped values.

const DESCRIPTION_OPENERS = [
  'Capture the glow of <strong>golden hour</strong> with a relaxed, guided {session} in {place}.',
  'A laid-back {session} for people who "hate being photographed" &amp; still want photos that feel like them.',
  "Whether it's your first shoot or your fiftieth, your {noun} is about real moments, not stiff poses.",
  'Based in {place}, {company} has photographed hundreds of couples, families &amp; brands.',
  'Think natural light, gentle prompts and plenty of time to settle in &mdash; no awkward "say cheese" moments.',
  'Your {noun}, told honestly: the nerves, the laughter &amp; the quiet in-between moments.',
] as const;

const DESCRIPTION_DETAILS = [
  "We'll meet at a location of your choice within 30&nbsp;km of {place}; travel beyond that is quoted separately.",
  'Sessions can be held indoors or outdoors, rain or shine.',
  'Bring outfit changes, favourite props &amp; even the dog &ndash; pets are welcome!',
  'Your private online gallery arrives ready to download, share &amp; print.',
  'I send a short style guide after booking so you know exactly what to wear.',
  'Prefer film? Ask about adding a roll of <em>Portra 400</em> to your {noun}.',
  'All editing is done by hand &mdash; no presets slapped on in bulk.',
] as const;

const HIGHLIGHTS = [
  'Guided posing for every comfort level',
  'Location scouting &amp; timeline planning',
  'Colour <strong>and</strong> black &amp; white edits',
  'Sneak peeks within 48 hours',
  'Print release included',
  'Easy online booking &amp; rescheduling',
] as const;

const INCLUDED_EXTRAS = [
  'Private online gallery for 12 months',
  'Print release &amp; personal-use license',
  'Pre-session planning call',
  'Sneak peeks within 48 hours',
  'Location scouting',
  'Heirloom album (10&times;10")',
  'Second shooter',
  'Travel within 30&nbsp;km',
] as const;

const EXPECT_BEFORE = [
  "After booking you'll get a welcome guide and a short questionnaire about your plans.",
  "We'll hop on a call two weeks before to plan the timeline &amp; locations.",
  'I send outfit ideas and a Pinterest board so we share the same "vibe".',
] as const;

const EXPECT_DURING = [
  "I'll guide you through natural prompts; there's no need to know how to pose.",
  'We take it slow, with breaks for water, touch-ups &amp; a few laughs.',
  'Expect to walk a bit &mdash; comfortable shoes for the in-between parts are a good idea.',
] as const;

const BIO_TEMPLATES = [
  "<p>Hi, I'm <strong>{first}</strong>! I've been photographing {category} in {place} for over {years} years.</p><p>I believe in honest, unposed images &amp; a relaxed day.</p>",
  '<p>{company} is a small studio run by {first}. Our {category} work has been featured in "Local Weddings" &amp; <em>Style Me Pretty</em>.</p>',
  '<p>{category} is where I started. Light, texture &amp; real connection are what I look for.</p><ul><li>Based in {place}</li><li>Available to travel</li></ul>',
] as const;

const FAQ_BANK = [
  ['Do you travel?', 'Yes! Travel within 30 km is included; further afield is quoted separately.'],
  [
    'How long until we get our photos?',
    'Sneak peeks arrive within 48 hours and the full gallery follows within the delivery time.',
  ],
  [
    'Can we add more time on the day?',
    'Of course, extra time is billed in 30-minute blocks & added to your final invoice.',
  ],
  ['What happens if it rains?', 'We reschedule free of charge or embrace the weather with umbrellas — your call.'],
  ['Do you provide the RAW files?', 'No, only the edited images are delivered. RAW files are kept for 12 months.'],
  ['Can we bring our dog?', 'Absolutely, pets are more than welcome 🐶'],
] as const;

const POLICY_LINES = {
  cancellation: [
    'Cancellations made 30 or more days before the session receive a full refund of the deposit.',
    'Cancellations within 30 days of the session forfeit the deposit.',
    'One free reschedule is included, subject to availability.',
    'No-shows are charged the full package price.',
  ],
  extension: [
    'Coverage can be extended on the day in 30-minute increments.',
    'Extensions are billed at the hourly rate & added to the final invoice.',
    "Extensions depend on the photographer's availability after your booking.",
  ],
  weather: [
    'Outdoor sessions may be moved if rain or high winds are forecast.',
    'The photographer makes the weather call 24 hours before the session.',
    'Weather reschedules are always free of charge.',
  ],
  license: [
    'You receive a personal-use license for all delivered images.',
    'Commercial use requires a separate license agreement.',
    'The photographer may use selected images for portfolio & marketing unless you opt out in writing.',
  ],
  paymentSchedule: [
    'The deposit is due at booking to reserve your date.',
    'The remaining balance is due 14 days before the session.',
    'Payments can be split into three monthly instalments on request.',
  ],
  addOns: [
    'Add-ons can be purchased up to 7 days before the session.',
    'Printed products ship within 3–4 weeks after the gallery is delivered.',
    'Add-ons are non-refundable once ordered.',
  ],
} as const;

const IMAGE_TITLES = [
  'First look by the lake',
  'Bride & groom at golden hour',
  '"Just married" sign',
  'Family walk through the park',
  'Newborn details',
  'Kraków old town at dusk',
  'Confetti exit',
  'IMG_4821.jpg',
  'DSC_0457',
  'Portrait in the studio',
] as const;

const PLACEHOLDER_MESSAGES = [
  'Booking for next season opens soon!',
  'Limited dates left this autumn 🍂',
  'Message me for a custom quote.',
  'Currently booking 2025 & 2026 dates.',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Showcases: rare cases forced on the first photographers and packages, so a small set shows every edge.

type PhotographerCase = 'rich' | 'sparse' | 'sharing' | 'endsAt24' | 'wholeSecond';
type PackageCase =
  | 'rich'
  | 'sparse'
  | 'depositFraction'
  | 'paymentSchedule'
  | 'noDeposit'
  | 'emptySchedulePolicy'
  | 'crlf'
  | 'lineSeparator'
  | 'emoji';

const PHOTOGRAPHER_SHOWCASE: Readonly<Record<number, readonly PhotographerCase[]>> = {
  0: ['rich', 'sharing'],
  1: ['sparse', 'endsAt24'],
  2: ['wholeSecond'],
  4: ['endsAt24', 'sharing'],
};

const PACKAGE_SHOWCASE: Readonly<Record<number, readonly PackageCase[]>> = {
  0: ['rich'],
  1: ['sparse'],
  2: ['depositFraction', 'crlf'],
  3: ['paymentSchedule', 'emptySchedulePolicy'],
  4: ['noDeposit', 'lineSeparator'],
  5: ['emoji'],
};

function modeOf(cases: readonly string[]): Mode {
  if (cases.includes('rich')) return 'rich';
  if (cases.includes('sparse')) return 'sparse';
  return 'random';
}

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

function makePools(rng: Rng): Pools {
  const socialSites = SOCIAL_SITES.map(({ name, icon, url }) => ({
    site: { identifier: rng.uuid(), name, description: `${name} profile`, icon },
    profileUrl: url,
  }));
  const tags = TAG_NAMES.map((tag) => ({ identifier: rng.uuid(), tag, priority: rng.int(1, 10) }));
  return deepFreeze({ socialSites, tags });
}

// ---------------------------------------------------------------------------------------------------------------
// Photographer ("owner") and what its packages draw on

interface Owner {
  photographer: V2Photographer; // embedded as-is in each of its packages
  email: string;
  market: Market;
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

function makeOwner(rng: Rng, pools: Pools, index: number): Owner {
  const cases = PHOTOGRAPHER_SHOWCASE[index] ?? [];
  const mode = modeOf(cases);
  const who = makeIdentity(rng, index);
  const city = rng.pick(who.market.cities);
  const handle = slugify(who.company, 40) || slugify(who.name, 40) || `studio-${rng.int(1000, 99999)}`;
  const specialties = rng.some(CATEGORIES, 1, 3);
  const sharing = cases.includes('sharing') || rng.chance(0.25);
  const photographer = makePhotographer(rng, pools, { who, city, handle, mode, cases });
  const addOns = rng.times(rng.int(1, 5), () => makeAddOn(rng, who.market.currency));
  const portfolio = rng.times(rng.int(1, 4), () => makePortfolio(rng, who, city, specialties));
  return deepFreeze({
    photographer,
    email: makeEmail(rng, who, handle),
    market: who.market,
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
  return timestamp(seconds, micros);
}

/** A city's coordinates moved up to `spread` micro-degrees each way. */
function makeLocation(rng: Rng, city: City, spread: number): V2Location {
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
// Package

function makePackage(rng: Rng, owner: Owner, index: number, nth: number): V2Package {
  const cases = PACKAGE_SHOWCASE[index] ?? [];
  const mode = modeOf(cases);
  const has = (c: PackageCase, probability: number) => cases.includes(c) || rng.chance(probability);
  const { photographer, market } = owner;
  const category = owner.specialties[nth % owner.specialties.length] ?? rng.pick(CATEGORIES);
  const location = makePackageLocation(rng, owner);
  const session = rng.pick(category.sessions);
  const title = makeTitle(rng, session, location.name, has('emoji', 0.02));
  const identifier = rng.uuid();
  const tags = makeTags(rng, owner, mode);
  const images = makeImages(rng, mode, 0.15, 6, 2);
  const hours = maybe(rng, mode, 0.15, () => rng.int(category.hours[0], category.hours[1]));
  const photos = makePhotoRange(rng, mode, category);
  const days = maybe(rng, mode, 0.2, () => rng.int(3, 60));
  const price = localPrice(rng, rng.int(category.price[0], category.price[1]), market.currency) * 100;
  const pay = makePayment(rng, mode, cases, price, market.currency);
  const newline = has('crlf', 0.15) ? '\r\n' : '\n';
  const policy = (lines: readonly string[], nullChance: number) =>
    maybe(rng, mode, nullChance, () => rng.some(lines, 2, 4).join(newline));
  const featured = mode === 'rich' || rng.chance(0.1);
  const texts = {
    session: session.toLowerCase(),
    noun: category.noun,
    place: location.name,
    company: photographer.company_name,
  };
  return {
    identifier,
    photographer,
    active_website: mode === 'sparse' || rng.chance(0.1) ? null : photographer.active_website,
    title,
    portrait_image: pickImage(rng, mode, images, (w, h) => h > w, identifier, 'portrait'),
    landscape_image: pickImage(rng, mode, images, (w, h) => w >= h, identifier, 'landscape'),
    category: category.code,
    category_name: category.name,
    priority_tags: tags,
    tag_keywords: tags.map((t) => `${t.tag},`).join(''),
    hours_of_coverage: hours === null ? null : decimal(hours * 250, 3), // quarter hours to thousandths
    number_of_photos_min: photos.min,
    number_of_photos_max: photos.max,
    days_to_delivery: days,
    license_type: rng.weighted([
      [1, 7],
      [2, 2],
      [3, 1],
    ]),
    description: makeDescription(rng, texts, has('lineSeparator', 0.003), has('emoji', 0.08)),
    whats_included: makeWhatsIncluded(rng, hours, photos),
    what_to_expect: makeWhatToExpect(rng, days),
    price: decimal(price, 2),
    payment_schedule: pay.schedule,
    deposit_fraction: pay.fraction,
    deposit: decimal(pay.deposit, 2),
    faqs: makeFaqs(rng, mode),
    cancellation_policy: policy(POLICY_LINES.cancellation, 0.2),
    extension_policy: policy(POLICY_LINES.extension, 0.5),
    weather_policy: policy(POLICY_LINES.weather, 0.4),
    license_policy: policy(POLICY_LINES.license, 0.4),
    weeks_available: null,
    payment_schedule_policy: makeSchedulePolicy(rng, mode, cases, newline),
    add_ons_policy: policy(POLICY_LINES.addOns, 0.5),
    photo_uploaded: images.length > 0,
    location,
    images,
    status: 1,
    photographer_email: owner.email,
    contract_template: null,
    questionnaire_template: null,
    featured,
    starting_at: rng.chance(0.3),
    simple_portfolio: pickShared(rng, mode, owner.portfolio, owner.sharing, 0.4),
    background_color: maybe(rng, mode, 0.7, () => rng.hexColour()),
    placeholder_message: rng.chance(0.15) ? rng.pick(PLACEHOLDER_MESSAGES) : '',
    mini_sessions: null,
    video_url: makeVideoUrl(rng, mode),
    show_calendar: rng.chance(0.6),
    use_time_picker: rng.chance(0.4),
    linked_add_ons: makeLinkedAddOns(rng, mode, owner),
    url_slug: `${slugify(title, 60) || 'package'}-${index + 1}`, // the counter makes it unique
    featured_position: featured ? rng.int(1, 50) : null,
    show_on_marketplace: rng.chance(0.9),
    hide_from_explore: rng.chance(0.05),
    collection_item_id: null,
    instant_booking: rng.chance(0.3),
  };
}

/** Mostly near the photographer; sometimes elsewhere in the market, now and then a destination shoot. */
function makePackageLocation(rng: Rng, owner: Owner): V2Location {
  const city = rng.weighted<readonly City[]>([
    [[owner.city], 8],
    [owner.market.cities, 1.5],
    [ALL_CITIES, 0.5],
  ]);
  return makeLocation(rng, rng.pick(city), 80_000);
}

function makeTitle(rng: Rng, session: string, place: string, emoji: boolean): string {
  let title = `${rng.pick(TITLE_MODIFIERS)} ${session}`;
  if (rng.chance(0.15)) title += ` in ${place.split(',')[0]}`;
  return emoji ? `✨ ${title} ✨` : title;
}

/** Rounded to the currency's step, in whole units. */
function localPrice(rng: Rng, usd: number, currency: Currency): number {
  const local = usd * currency.perUsd * (0.9 + rng.int(0, 20) / 100);
  return Math.max(currency.step, Math.round(local / currency.step) * currency.step);
}

function makePhotoRange(rng: Rng, mode: Mode, category: Category): { min: number | null; max: number | null } {
  const [low, high] = category.photos;
  const min = maybe(rng, mode, 0.25, () => rng.int(low, Math.floor((low + high) / 2)));
  const max = maybe(rng, mode, 0.25, () => rng.int(min ?? low, high)); // never below min
  return { min, max };
}

interface Payment {
  fraction: string | null;
  schedule: string | null;
  deposit: number; // cents
}

const FRACTIONS = [100_000_000, 200_000_000, 250_000_000, 333_333_333, 500_000_000] as const; // in 1e-9

/** Either a deposit fraction or a payment schedule, or neither; never both. */
function makePayment(rng: Rng, mode: Mode, cases: readonly PackageCase[], price: number, currency: Currency): Payment {
  const kind = cases.includes('depositFraction')
    ? 'fraction'
    : cases.includes('paymentSchedule')
      ? 'schedule'
      : cases.includes('noDeposit') || mode === 'sparse'
        ? 'none'
        : mode === 'rich'
          ? 'fraction'
          : rng.weighted([
              ['fraction', 45],
              ['schedule', 20],
              ['none', 35],
            ] as const);
  if (kind === 'none') {
    const flat = rng.chance(0.5) ? 0 : localPrice(rng, rng.pick([50, 100, 250]), currency) * 100; // a flat retainer
    return { fraction: null, schedule: null, deposit: flat };
  }
  const share = rng.pick(FRACTIONS);
  const deposit = Math.round((price * share) / 1e9);
  const value = decimal(share, 9);
  return kind === 'fraction'
    ? { fraction: value, schedule: null, deposit }
    : { fraction: null, schedule: value, deposit };
}

/** Text, the empty string or null, as the legacy data has all three. */
function makeSchedulePolicy(rng: Rng, mode: Mode, cases: readonly PackageCase[], newline: string): string | null {
  const text = () => rng.some(POLICY_LINES.paymentSchedule, 2, 3).join(newline);
  if (cases.includes('emptySchedulePolicy')) return '';
  if (mode === 'sparse') return null;
  if (mode === 'rich') return text();
  const kind = rng.weighted([
    ['text', 5],
    ['empty', 2.5],
    ['null', 2.5],
  ] as const);
  return kind === 'text' ? text() : kind === 'empty' ? '' : null;
}

function makeTags(rng: Rng, owner: Owner, mode: Mode): V2PriorityTag[] {
  const { tags } = owner.pools;
  const n = howMany(rng, mode, 0.35, 4);
  const chosen = rng.some(tags, n, n);
  const first = tags[0];
  if (owner.sharing && mode !== 'sparse' && first && !chosen.includes(first)) chosen.unshift(first);
  return chosen;
}

/** A subset of the owner's records; a sharing owner's packages all hold the first one. */
function pickShared<T>(rng: Rng, mode: Mode, pool: readonly T[], sharing: boolean, emptyChance: number): T[] {
  const n = howMany(rng, mode, sharing ? 0 : emptyChance, pool.length);
  const chosen = rng.some(pool, n, n);
  const first = pool[0];
  if (sharing && first !== undefined && n > 0 && !chosen.includes(first)) chosen[0] = first;
  return chosen;
}

function makeLinkedAddOns(rng: Rng, mode: Mode, owner: Owner): V2LinkedAddOn[] {
  const templates = pickShared(rng, mode, owner.addOns, owner.sharing, 0.45);
  return templates.map((template) => ({ identifier: rng.uuid(), package_add_on_template: template }));
}

function makeFaqs(rng: Rng, mode: Mode): { question: string; answer: string }[] {
  const n = howMany(rng, mode, 0.85, 3);
  return rng.some(FAQ_BANK, n, n).map(([question, answer]) => ({ question, answer }));
}

function makeVideoUrl(rng: Rng, mode: Mode): string {
  if (mode === 'sparse' || (mode === 'random' && rng.chance(0.85))) return '';
  return rng.chance(0.6)
    ? `https://www.youtube.com/watch?v=${rng.alnum(11)}`
    : `https://vimeo.com/${rng.int(10_000_000, 999_999_999)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Images

/** 0..max images; a rich set holds at least two, the second with every nullable field empty. */
function makeImages(rng: Rng, mode: Mode, emptyChance: number, max: number, richMin = 1): V2Image[] {
  const n = howMany(rng, mode, emptyChance, max, richMin);
  return rng.times(n, (i) => makeImage(rng, mode === 'rich' ? (i === 1 ? 'sparse' : 'rich') : 'random'));
}

function makeImage(rng: Rng, mode: Mode): V2Image {
  const identifier = rng.uuid();
  const [width, height] = rng.pick(IMAGE_SIZES);
  const url = (rendition: string) => `${CDN}/images/${identifier}/${rendition}`;
  const bytes = width * height * (0.25 + rng.int(0, 30) / 100); // JPEG at roughly 0.25-0.55 bytes per pixel
  return {
    identifier,
    image: url('original.jpg'),
    thumbnail: maybe(rng, mode, 0.05, () => url('thumb_480.jpg')),
    mobile_thumbnail: maybe(rng, mode, 0.1, () => url('mobile_1080.webp')),
    preload: maybe(rng, mode, 0.2, () => url('preload_32.jpg')),
    dimensions: { width, height },
    image_title: maybe(rng, mode, 0.5, () => rng.pick(IMAGE_TITLES)),
    filesize_mb: maybe(rng, mode, 0.1, () => decimal((bytes / 1_048_576) * 100, 2)),
  };
}

/** The first image of the wanted orientation; rich packages get a dedicated file when none matches. */
function pickImage(
  rng: Rng,
  mode: Mode,
  images: readonly V2Image[],
  fits: (width: number, height: number) => boolean,
  packageId: string,
  kind: string,
): string | null {
  if (mode === 'sparse') return null;
  const match = images.find((img) => fits(img.dimensions.width, img.dimensions.height));
  if (mode === 'rich') return match?.image ?? `${CDN}/packages/${packageId}/${kind}.jpg`;
  return match && rng.chance(0.85) ? match.image : null;
}

// ---------------------------------------------------------------------------------------------------------------
// HTML texts

interface TextValues extends Record<string, string> {
  session: string;
  noun: string;
  place: string;
  company: string;
}

function makeDescription(rng: Rng, values: TextValues, lineSeparator: boolean, emoji: boolean): string {
  const opener = fill(rng.pick(DESCRIPTION_OPENERS), values, true);
  const details = rng.some(DESCRIPTION_DETAILS, 1, 3).map((d) => fill(d, values, true));
  // A pasted line separator (U+2028) inside a paragraph, as rich-text editors leave them.
  const second = details.join(lineSeparator ? '\u2028' : ' ');
  let html = `<p>${opener}${emoji ? ' 📸' : ''}</p><p>${second}</p>`;
  if (rng.chance(0.4))
    html += `<ul>${rng
      .some(HIGHLIGHTS, 2, 4)
      .map((h) => `<li>${h}</li>`)
      .join('')}</ul>`;
  return html;
}

function makeWhatsIncluded(rng: Rng, quarters: number | null, photos: { min: number | null; max: number | null }) {
  const items: string[] = [];
  if (quarters !== null) items.push(`<strong>${quarters / 4} hour${quarters === 4 ? '' : 's'}</strong> of coverage`);
  if (photos.min !== null && photos.max !== null)
    items.push(`${photos.min}&ndash;${photos.max} edited, high-resolution images`);
  else if (photos.max !== null) items.push(`Up to ${photos.max} edited images`);
  items.push(...rng.some(INCLUDED_EXTRAS, 1, 4));
  const intro = rng.chance(0.3) ? '<p>Everything you need, nothing you don&#39;t:</p>' : '';
  return `${intro}<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`;
}

function makeWhatToExpect(rng: Rng, days: number | null): string {
  const after = days === null ? 'Your gallery follows soon after.' : `Your gallery arrives within ${days} days.`;
  return [
    `<p><strong>Before:</strong> ${rng.pick(EXPECT_BEFORE)}</p>`,
    `<p><strong>On the day:</strong> ${rng.pick(EXPECT_DURING)}</p>`,
    `<p><strong>After:</strong> ${after}</p>`,
  ].join('');
}
