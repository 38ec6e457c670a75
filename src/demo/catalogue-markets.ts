// Markets of the demo marketplace: currencies, cities, company-name patterns and hand-picked first identities.

import type { MarketLocale, Rng } from './random.js';

export interface Currency {
  code: string;
  symbol: string;
  perUsd: number; // rough exchange rate, to make prices look local
  step: number; // prices are rounded to this many whole units
}

export const CURRENCIES = {
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

/** Rounded to the currency's step, in whole units. */
export function localPrice(rng: Rng, usd: number, currency: Currency): number {
  const local = usd * currency.perUsd * (0.9 + rng.int(0, 20) / 100);
  return Math.max(currency.step, Math.round(local / currency.step) * currency.step);
}

export interface City {
  name: string; // place label
  lat: number;
  lng: number;
}

export interface Market {
  locale: MarketLocale;
  weight: number;
  currency: Currency;
  phonePrefix: string;
  taxRates: readonly number[]; // in 1/10000
  cities: readonly City[];
}

export const MARKETS: readonly Market[] = [
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

export const ALL_CITIES: readonly City[] = MARKETS.flatMap((market) => market.cities);

/** How a company name is built from the owner's name, per locale; `{last}` and `{first}` are filled in. */
export const COMPANY_PATTERNS: Record<MarketLocale, readonly string[]> = {
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
export const CURATED: Readonly<Record<number, Curated>> = {
  2: { name: 'Zoë Łukasiewicz', first: 'Zoë', company: 'Zoë Łukasiewicz Fotografia', locale: 'pl' },
  3: { name: 'Jürgen Müller', first: 'Jürgen', company: 'Müller & Söhne "Lichtbild" Fotografie', locale: 'de' },
  4: { name: '佐藤 花子', first: '花子', company: '写真スタジオ 光 📸', locale: 'jp' },
  5: { name: 'Luna Ríos 🌙', first: 'Luna', company: "Luna's Fotografía ✨", locale: 'mx' },
};
