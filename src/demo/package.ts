// One v2 Package: title, place, price, payment terms, policies and images, drawn around its photographer.

import type { V2LinkedAddOn, V2Location, V2Package, V2PriorityTag } from '../v2/records.js';
import { ALL_CITIES, type City, type Currency, localPrice } from './catalogue-markets.js';
import { CATEGORIES, type Category, TITLE_MODIFIERS } from './catalogue-offers.js';
import { decimal, slugify } from './format.js';
import { makeImages, pickImage } from './images.js';
import { makeLocation, type Owner } from './photographer.js';
import { howMany, type Mode, maybe, type Rng } from './random.js';
import { modeOf, PACKAGE_SHOWCASE, type PackageCase } from './showcase.js';
import {
  FAQ_BANK,
  makeDescription,
  makeWhatsIncluded,
  makeWhatToExpect,
  PLACEHOLDER_MESSAGES,
  POLICY_LINES,
} from './text.js';

export function makePackage(rng: Rng, owner: Owner, index: number, nth: number): V2Package {
  const cases = PACKAGE_SHOWCASE[index] ?? [];
  const mode = modeOf(cases);
  const has = (c: PackageCase, probability: number) => cases.includes(c) || rng.chance(probability);
  const { photographer, currency } = owner;
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
  const price = localPrice(rng, rng.int(category.price[0], category.price[1]), currency) * 100;
  const pay = makePayment(rng, mode, cases, price, currency);
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
