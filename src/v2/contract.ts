// The v2 listing's records (shared/spec/package-listing-v2.md, section 2) as zod schemas: legacy snake_case names
// in the spec's table order, each field's type, nullability and decimal scale. The one place the v2 record shape
// is written down: the TypeScript types (z.infer), the import's validation (src/import/validate.ts) and the
// OpenAPI description (src/rest/openapi.ts) all derive from here.
//
// Beyond the spec, each value carries what a lossless round trip through the database needs (see scalars.ts): a
// decimal's precision is its column's (a test holds them to the migrated database), texts PostgreSQL can store,
// lower-case identifiers, created_at in the one form the listing writes.
import { z } from 'zod';
import {
  anyJson,
  bool,
  decimal,
  email,
  hexColour,
  host,
  INT_MAX,
  int,
  isClock,
  isHHMM,
  isHttpUrl,
  isObject,
  jsonText,
  onlyNull,
  problem,
  text,
  textWhere,
  timestamp,
  url,
  uuid,
} from './scalars.js';

/** Records stored once and shared by every package that embeds them. */
export type SharedKind = 'photographer' | 'image' | 'socialSite' | 'priorityTag' | 'portfolio' | 'addOnTemplate';

/** What the import needs to know of a schema besides its shape (kept out of the OpenAPI description). */
export interface ContractMeta {
  /** A shared record: the same identifier must carry the same content throughout a source. */
  shared?: SharedKind;
  /** Problems inside are reported once, here, as this expectation. */
  whole?: string;
  /** The table whose decimal columns hold this record's decimals (for the precision test). */
  tables?: string[];
}

export const contractMeta = z.registry<ContractMeta>();

/**
 * An object of exactly these keys in this order (the import checks the order; see src/import/validate.ts), with
 * `rules` over the whole record when its fields are right.
 */
function record<Shape extends z.ZodRawShape>(
  id: string,
  shape: Shape,
  meta: ContractMeta = {},
  rules?: (ctx: z.core.ParsePayload<z.infer<z.ZodObject<Shape>>>) => void,
) {
  const base = z.object(shape, { error: 'an object' });
  const schema = (rules ? base.check(rules) : base).meta({ id });
  contractMeta.add(schema, meta);
  return schema;
}

/** A list of records whose identifiers differ from each other. */
function distinctList<Item extends z.ZodType<{ identifier: string }>>(item: Item) {
  return z.array(item, { error: 'an array' }).check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((entry, i) => {
      if (seen.has(entry.identifier)) {
        ctx.issues.push({
          code: 'custom',
          message: 'an identifier not used by another entry of this list',
          input: entry.identifier,
          path: [i, 'identifier'],
        });
      }
      seen.add(entry.identifier);
    });
  });
}

const list = <Item extends z.ZodType>(item: Item) => z.array(item, { error: 'an array' });

export const Location = record(
  'Location',
  { latitude: decimal(6, 9), longitude: decimal(6, 9), name: text },
  { tables: ['package', 'photographer'] },
);

const positiveInt = z.number().int().positive().max(INT_MAX);
const dimensions = z.object({ width: positiveInt, height: positiveInt });
contractMeta.add(dimensions, { whole: '{width, height} (in that order), positive integers' });

export const Image = record(
  'Image',
  {
    identifier: uuid,
    image: url,
    thumbnail: url.nullable(),
    mobile_thumbnail: url.nullable(),
    preload: url.nullable(),
    dimensions,
    image_title: text.nullable(),
    filesize_mb: decimal(2, 12).nullable(),
  },
  { shared: 'image', tables: ['image'] },
);

export const Review = record(
  'Review',
  { identifier: uuid, rating: decimal(1, 4), url, number: int },
  { tables: ['review'] },
);

export const PriorityTag = record(
  'PriorityTag',
  { identifier: uuid, tag: text, priority: int },
  { shared: 'priorityTag' },
);

export const SimplePortfolio = record(
  'SimplePortfolio',
  { identifier: uuid, category: int, bio: text.meta({ description: 'HTML.' }) },
  { shared: 'portfolio' },
);

export const AddOnTemplate = record(
  'AddOnTemplate',
  { identifier: uuid, name: text, price: decimal(2, 14), quantity: int },
  { shared: 'addOnTemplate', tables: ['add_on_template'] },
);

export const LinkedAddOn = record('LinkedAddOn', { identifier: uuid, package_add_on_template: AddOnTemplate });

export const SocialSite = record(
  'SocialSite',
  { identifier: uuid, name: text, description: text, icon: text.meta({ description: 'Icon class names.' }) },
  { shared: 'socialSite' },
);

export const Social = record('Social', { identifier: uuid, url, social_site: SocialSite });

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const CalendarWorkDay = record('CalendarWorkDay', {
  identifier: uuid,
  work_times: jsonText(
    (parsed) =>
      Array.isArray(parsed) &&
      parsed.every((r) => isObject(r) && Object.keys(r).length === 2 && isHHMM(r.start) && isHHMM(r.end)),
    '[{start, end}] HHMM strings',
  ),
  day: textWhere((v) => WEEKDAYS.includes(v), 'an English weekday name'),
  shortcut: textWhere((v) => v.length === 1, 'a one-letter day abbreviation'),
  active: bool,
});

const calendarWorkDays = distinctList(CalendarWorkDay).check((ctx) => {
  const days = ctx.value.map((d) => d.day).sort();
  if (days.length !== 7 || new Set(days).size !== 7) problem(ctx, 'one entry per weekday', JSON.stringify(days));
});

export const Photographer = record(
  'Photographer',
  {
    identifier: uuid,
    name: text,
    login: text.nullable(),
    domain: host.nullable(),
    next_custom_domain: host.nullable(),
    created_at: timestamp,
    display_image: url.nullable(),
    company_image: url.nullable(),
    favicon_image: url.nullable(),
    company_name: text,
    location: Location,
    calendars_json: jsonText(() => true, 'any JSON value').nullable(),
    review: Review.nullable(),
    currency_code: textWhere((v) => /^[a-z]{3}$/.test(v), 'a lower-case currency code'),
    currency_symbol: text,
    override_currency_code: text.nullable(),
    override_currency_symbol: text.nullable(),
    payments_onboard_completed: bool,
    free_plus_marketplace_plan: bool,
    payments_user_id: text,
    socials: distinctList(Social),
    cover_image: list(Image),
    phone: textWhere((v) => /^\d+$/.test(v), 'digits only').nullable(),
    background_color: hexColour.nullable(),
    display_font: text.nullable(),
    secondary_font: text.nullable(),
    font_color: hexColour.nullable(),
    tax_rate: decimal(4, 10),
    start_work_time: jsonText((o) => isClock(o, 23), '{hour, minute}'),
    end_work_time: jsonText((o) => isClock(o, 24), '{hour, minute} (hour up to 24)'),
    calendar_work_days: calendarWorkDays,
    crm_organization_id: text.nullable(),
    buffer: jsonText((o) => isClock(o, 24), '{hour, minute}'),
    is_creator_only: bool,
    active_website: uuid.nullable(),
    designed_by_platform: bool,
    active_subscription_name: text.nullable(),
    plan_external_website: bool,
  },
  { shared: 'photographer', tables: ['photographer'] },
);

export const Package = record(
  'Package',
  {
    identifier: uuid,
    photographer: Photographer,
    active_website: uuid.nullable(),
    title: text,
    portrait_image: url.nullable(),
    landscape_image: url.nullable(),
    category: int,
    category_name: text,
    priority_tags: list(PriorityTag),
    tag_keywords: textWhere((v) => v === '' || v.endsWith(','), "'' or comma-joined names with a trailing comma"),
    hours_of_coverage: decimal(3, 12).nullable(),
    number_of_photos_min: int.nullable(),
    number_of_photos_max: int.nullable(),
    days_to_delivery: int.nullable(),
    license_type: int,
    description: text.meta({ description: 'HTML.' }),
    whats_included: text.meta({ description: 'HTML.' }),
    what_to_expect: text.meta({ description: 'HTML.' }),
    price: decimal(2, 14),
    payment_schedule: decimal(9, 20).nullable(),
    deposit_fraction: decimal(9, 20).nullable(),
    deposit: decimal(2, 14),
    faqs: list(anyJson),
    cancellation_policy: text.nullable(),
    extension_policy: text.nullable(),
    weather_policy: text.nullable(),
    license_policy: text.nullable(),
    weeks_available: onlyNull,
    payment_schedule_policy: text.nullable(),
    add_ons_policy: text.nullable(),
    photo_uploaded: bool,
    location: Location,
    images: list(Image),
    // The listing shows status 1 only; any integer is taken, so that a newer copy can take a package off the list.
    status: int,
    photographer_email: email,
    contract_template: onlyNull,
    questionnaire_template: onlyNull,
    featured: bool,
    starting_at: bool,
    simple_portfolio: list(SimplePortfolio),
    background_color: text.nullable(),
    placeholder_message: text,
    mini_sessions: onlyNull,
    video_url: textWhere((v) => v === '' || isHttpUrl(v), "'' or an absolute http(s) URL"),
    show_calendar: bool,
    use_time_picker: bool,
    linked_add_ons: distinctList(LinkedAddOn),
    url_slug: text,
    featured_position: int.nullable(),
    show_on_marketplace: bool,
    hide_from_explore: bool,
    collection_item_id: onlyNull,
    instant_booking: bool,
  },
  { tables: ['package'] },
  (ctx) => {
    // Spec 2.2 rule 2, and a photo count range that reads as one.
    const p = ctx.value;
    if (p.deposit_fraction !== null && p.payment_schedule !== null) {
      ctx.issues.push({
        code: 'custom',
        message: 'null when deposit_fraction is set (spec 2.2 rule 2)',
        input: p.payment_schedule,
        path: ['payment_schedule'],
      });
    }
    const min = p.number_of_photos_min;
    const max = p.number_of_photos_max;
    if (min !== null && max !== null && min > max) {
      ctx.issues.push({
        code: 'custom',
        message: `at least number_of_photos_min (${min})`,
        input: max,
        path: ['number_of_photos_max'],
      });
    }
  },
);

export const Page = record('Page', {
  count: z.number().int().nonnegative(),
  next: z.string().meta({ format: 'uri' }).nullable(),
  previous: z.string().meta({ format: 'uri' }).nullable(),
  results: z.array(Package),
});

export type V2Location = z.infer<typeof Location>;
export type V2Review = z.infer<typeof Review>;
export type V2PriorityTag = z.infer<typeof PriorityTag>;
export type V2SimplePortfolio = z.infer<typeof SimplePortfolio>;
export type V2AddOnTemplate = z.infer<typeof AddOnTemplate>;
export type V2LinkedAddOn = z.infer<typeof LinkedAddOn>;
export type V2SocialSite = z.infer<typeof SocialSite>;
export type V2Social = z.infer<typeof Social>;
export type V2CalendarWorkDay = z.infer<typeof CalendarWorkDay>;
export type V2Image = z.infer<typeof Image>;
export type V2Photographer = z.infer<typeof Photographer>;
export type V2Package = z.infer<typeof Package>;
export type V2Page = z.infer<typeof Page>;
/** Any JSON value: the fields whose shape the spec does not show are kept as given. */
export type JsonValue = z.infer<typeof anyJson>;
