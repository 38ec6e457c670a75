// The read model: what a page needs, prepared from the tables in the transaction that writes a listing version,
// so a request reads ready values instead of rebuilding them from rows (prisma/schema.prisma: PackageDocument,
// PhotographerDocument, ListingSummary, ReadModelState).
//
// - A package's v2 record and a photographer's v2 object as JSON text, DRF's bytes exactly: keys in the contract's
//   order (src/v2/contract.ts), a key's column of the same name (as src/db/write/rows.ts reads them the other way),
//   texts escaped as json.dumps escapes them (PostgreSQL's JSON escaping is the same set), decimals as text with
//   their column's scale, json columns as stored, U+2028/U+2029 escaped as DRF's renderer does. The photographer is
//   kept once and joined in when a page is read, so a photographer's change rewrites one row, not every package.
// - A package's nested lists as the GraphQL resolvers take them (rows under their model field names), so a page's
//   statement brings them and the loaders are primed instead of asked.
// - A photographer's GraphQL object with every field, as graphql-js writes it, in parts around the fields the
//   server writes per request (src/graphql/prepared-photographers.ts).
// - The listing summary: the search vocabulary and the facet columns (src/db/write/listing-summary.ts).
//
// One function builds it (`rebuildReadModel`, src/db/write/read-model-rebuild.ts); the writers call it through `bumpListingVersion`, and a test calls
// the same SQL again and compares, so it cannot drift from the tables.
import type { z } from 'zod';
import * as contract from '../../v2/contract.js';
import { jsonObject, type ModelName, scalarFields } from '../columns.js';

/** Bumped whenever what the read model holds changes shape: a start that finds another builds it again. */
export const READ_MODEL_FORMAT = 4;

type Shape = z.ZodObject<z.ZodRawShape>;

/**
 * The text of `"key":value` pairs for the keys, in the contract's order, between `open` and `close`; `value` gives
 * each key's expression, never NULL. Built by one array_to_string: a chain of || copies the growing text again
 * at every step, which made a record's text cost three times as much.
 */
function membersText(keys: readonly string[], value: (key: string) => string, open: string, close: string): string {
  const parts = keys.flatMap((key, i) => [`'${i === 0 ? open : ','}"${key}":'`, value(key)]);
  return `array_to_string(ARRAY[${parts.join(', ')}, '${close}'], '')`;
}

/** A JSON object's text from its keys' value expressions, in the contract's order. */
const objectText = (schema: Shape, value: (key: string) => string) =>
  membersText(Object.keys(schema.shape), value, '{', '}');

/** A column's value as JSON text, by its type in the Prisma schema; `null` for SQL NULL. */
function columnText(model: ModelName, alias: string, column: string): string {
  const field = scalarFields(model).find((f) => f.column === column);
  if (!field) throw new Error(`the v2 key ${column} has no column in ${model}`);
  const ref = `${alias}."${column}"`;
  const json =
    field.type === 'Json' ? `${ref}::text` : `to_json(${field.type === 'Decimal' ? `${ref}::text` : ref})::text`;
  return `coalesce(${json}, 'null')`;
}

/** A model's value of a v2 key: `special`'s, else the column of the key's name (`identifier` is `id`). */
const keyValue = (model: ModelName, alias: string, special: Record<string, string>) => (key: string) =>
  special[key] ?? columnText(model, alias, key === 'identifier' ? 'id' : key);

const recordText = (schema: Shape, model: ModelName, alias: string, special: Record<string, string> = {}) =>
  objectText(schema, keyValue(model, alias, special));

/** The rows' texts as a JSON array, in `l.position` order; `from` names the rows. */
const arrayText = (element: string, from: string) =>
  `coalesce((SELECT '[' || string_agg(${element}, ',' ORDER BY l.position) || ']' ${from}), '[]')`;

const locationText = (model: 'Package' | 'Photographer', alias: string) =>
  objectText(contract.Location, (key) => columnText(model, alias, key === 'name' ? 'location_name' : key));

const imageText = (alias: string) =>
  recordText(contract.Image, 'Image', alias, {
    dimensions: `'{"width":' || ${alias}.width || ',"height":' || ${alias}.height || '}'`,
  });

/** created_at as the listing writes it: UTC, six fraction digits from created_at_micros, none when 0. */
const createdAtText = `to_json(to_char(ph.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
  || CASE WHEN ph.created_at_micros = 0 THEN 'Z' ELSE '.' || lpad(ph.created_at_micros::text, 6, '0') || 'Z' END)::text`;

/** What DRF's renderer escapes beyond json.dumps: the two line separators. */
const drfText = (text: string) => `replace(replace(${text}, U&'\\2028', '\\u2028'), U&'\\2029', '\\u2029')`;

/**
 * A package's currency, ISO 4217 upper case, from its photographer (alias `ph`): the override when set (not
 * empty), else the photographer's own. Every price of the package (its price, deposit, add-ons) is in it.
 */
export const effectiveCurrency = (ph: string) =>
  `upper(coalesce(nullif(${ph}."override_currency_code", ''), ${ph}."currency_code"))`;

/** The symbol of that currency as the photographer gives it: the override's when the override is set. */
export const effectiveCurrencySymbol = (ph: string) =>
  `CASE WHEN nullif(${ph}."override_currency_code", '') IS NULL THEN ${ph}."currency_symbol"
    ELSE coalesce(nullif(${ph}."override_currency_symbol", ''), upper(${ph}."override_currency_code")) END`;

/** Whether the photographer has a listed package: only those have a document. */
export const LISTED = (photographer: string) =>
  `EXISTS (SELECT 1 FROM package p WHERE p.photographer_id = ${photographer} AND p.status = 1)`;

/** The photographer's v2 object (alias `ph`). */
const PHOTOGRAPHER_V2 = drfText(
  recordText(contract.Photographer, 'Photographer', 'ph', {
    created_at: createdAtText,
    location: locationText('Photographer', 'ph'),
    review: `coalesce((SELECT ${recordText(contract.Review, 'Review', 'r')} FROM review r WHERE r.photographer_id = ph.id), 'null')`,
    socials: arrayText(
      recordText(contract.Social, 'Social', 'l', { social_site: recordText(contract.SocialSite, 'SocialSite', 'ss') }),
      'FROM social l JOIN social_site ss ON ss.id = l.social_site_id WHERE l.photographer_id = ph.id',
    ),
    cover_image: arrayText(
      imageText('i'),
      'FROM photographer_cover_image l JOIN image i ON i.id = l.image_id WHERE l.photographer_id = ph.id',
    ),
    calendar_work_days: arrayText(
      recordText(contract.CalendarWorkDay, 'CalendarWorkDay', 'l'),
      'FROM calendar_work_day l WHERE l.photographer_id = ph.id',
    ),
  }),
);

// The photographer's GraphQL object, as graphql-js writes `photographer { ...every field }` (fields in the
// schema's order, which is by name), in parts between which the server writes the holes' values. Values
// as the resolvers give them: decimals as their text, clock times and work times read from their stored JSON
// text (the import checked their shape: src/v2/contract.ts), createdAt as src/v2/timestamp.ts writes it.

/** A GraphQL object's text from its fields' value expressions, fields in the schema's order (by name). */
const graphqlObject = (members: Record<string, string>) => {
  const keys = Object.keys(members).sort();
  return membersText(keys, (key) => members[key] as string, '{', '}');
};

/** A column of the photographer `ph` as JSON text, `null` for NULL. */
const ph = (column: string) => columnText('Photographer', 'ph', column);

/** A stored `{"hour":..,"minute":..}` text as a ClockTime object. */
const clockText = (text: string) =>
  `'{"hour":' || ((${text})::jsonb->>'hour')::numeric::int || ',"minute":' || ((${text})::jsonb->>'minute')::numeric::int || '}'`;

/** An HHMM integer in a string (`"1700"`) as a ClockTime object. */
const hhmmText = (text: string) =>
  `'{"hour":' || ((${text})::int / 100) || ',"minute":' || ((${text})::int % 100) || '}'`;

const WORK_TIMES = `coalesce((SELECT '[' || string_agg('{"end":' || ${hhmmText("w.value->>'end'")} || ',"start":' || ${hhmmText("w.value->>'start'")} || '}', ',' ORDER BY w.ordinality) || ']'
  FROM jsonb_array_elements(l.work_times::jsonb) WITH ORDINALITY w), '[]')`;

const IMAGE_GRAPHQL = graphqlObject({
  dimensions: `'{"height":' || i.height || ',"width":' || i.width || '}'`,
  filesizeMb: columnText('Image', 'i', 'filesize_mb'),
  id: columnText('Image', 'i', 'id'),
  image: columnText('Image', 'i', 'image'),
  imageTitle: columnText('Image', 'i', 'image_title'),
  mobileThumbnail: columnText('Image', 'i', 'mobile_thumbnail'),
  preload: columnText('Image', 'i', 'preload'),
  thumbnail: columnText('Image', 'i', 'thumbnail'),
});

/** Every field of the photographer in GraphQL but the holes (PHOTOGRAPHER_GRAPHQL_HOLES), which the server writes. */
const PHOTOGRAPHER_GRAPHQL_FIELDS: Record<string, string> = {
  activeSubscriptionName: ph('active_subscription_name'),
  activeWebsite: ph('active_website'),
  backgroundColor: ph('background_color'),
  buffer: clockText('ph.buffer'),
  bufferJson: ph('buffer'),
  calendarWorkDays: arrayText(
    graphqlObject({
      active: columnText('CalendarWorkDay', 'l', 'active'),
      day: columnText('CalendarWorkDay', 'l', 'day'),
      id: columnText('CalendarWorkDay', 'l', 'id'),
      shortcut: columnText('CalendarWorkDay', 'l', 'shortcut'),
      workTimes: WORK_TIMES,
      workTimesJson: columnText('CalendarWorkDay', 'l', 'work_times'),
    }),
    'FROM calendar_work_day l WHERE l.photographer_id = ph.id',
  ),
  calendarsJson: ph('calendars_json'),
  companyImage: ph('company_image'),
  companyName: ph('company_name'),
  coverImages: arrayText(
    IMAGE_GRAPHQL,
    'FROM photographer_cover_image l JOIN image i ON i.id = l.image_id WHERE l.photographer_id = ph.id',
  ),
  createdAt: createdAtText,
  currencyCode: ph('currency_code'),
  currencySymbol: ph('currency_symbol'),
  designedByPlatform: ph('designed_by_platform'),
  displayFont: ph('display_font'),
  displayImage: ph('display_image'),
  domain: ph('domain'),
  endWorkTime: clockText('ph.end_work_time'),
  endWorkTimeJson: ph('end_work_time'),
  faviconImage: ph('favicon_image'),
  fontColor: ph('font_color'),
  freePlusMarketplacePlan: ph('free_plus_marketplace_plan'),
  id: ph('id'),
  isCreatorOnly: ph('is_creator_only'),
  location: graphqlObject({
    latitude: ph('latitude'),
    longitude: ph('longitude'),
    name: ph('location_name'),
  }),
  login: ph('login'),
  name: ph('name'),
  nextCustomDomain: ph('next_custom_domain'),
  overrideCurrencyCode: ph('override_currency_code'),
  overrideCurrencySymbol: ph('override_currency_symbol'),
  paymentsOnboardCompleted: ph('payments_onboard_completed'),
  planExternalWebsite: ph('plan_external_website'),
  review: `coalesce((SELECT ${graphqlObject({
    id: columnText('Review', 'r', 'id'),
    number: columnText('Review', 'r', 'number'),
    rating: columnText('Review', 'r', 'rating'),
    url: columnText('Review', 'r', 'url'),
  })} FROM review r WHERE r.photographer_id = ph.id), 'null')`,
  secondaryFont: ph('secondary_font'),
  socials: arrayText(
    graphqlObject({
      id: columnText('Social', 'l', 'id'),
      socialSite: graphqlObject({
        description: columnText('SocialSite', 'ss', 'description'),
        icon: columnText('SocialSite', 'ss', 'icon'),
        id: columnText('SocialSite', 'ss', 'id'),
        name: columnText('SocialSite', 'ss', 'name'),
      }),
      url: columnText('Social', 'l', 'url'),
    }),
    'FROM social l JOIN social_site ss ON ss.id = l.social_site_id WHERE l.photographer_id = ph.id',
  ),
  startWorkTime: clockText('ph.start_work_time'),
  startWorkTimeJson: ph('start_work_time'),
  taxRate: ph('tax_rate'),
};

/**
 * The fields whose values the server writes between the parts of the photographer's GraphQL text, by the column
 * that holds each: the private ones (null or the value, by the caller's scope), and calendars (calendarsJson
 * parsed and written again, which SQL cannot do as JSON.stringify does).
 */
export const PHOTOGRAPHER_GRAPHQL_HOLES = {
  calendars: 'calendars_json',
  crmOrganizationId: 'crm_organization_id',
  paymentsUserId: 'payments_user_id',
  phone: 'phone',
} as const;

/** The photographer's GraphQL text as parts (text[]), cut after each hole's `"field":`. */
const PHOTOGRAPHER_GRAPHQL_PARTS = (() => {
  const keys = [...Object.keys(PHOTOGRAPHER_GRAPHQL_FIELDS), ...Object.keys(PHOTOGRAPHER_GRAPHQL_HOLES)].sort();
  const parts: string[][] = [[]];
  keys.forEach((key, i) => {
    const part = parts[parts.length - 1] as string[];
    part.push(`'${i === 0 ? '{' : ','}"${key}":'`);
    if (key in PHOTOGRAPHER_GRAPHQL_HOLES) parts.push([]);
    else part.push(PHOTOGRAPHER_GRAPHQL_FIELDS[key] as string);
  });
  (parts[parts.length - 1] as string[]).push(`'}'`);
  return `ARRAY[${parts.map((part) => `array_to_string(ARRAY[${part.join(', ')}], '')`).join(', ')}]`;
})();

/** The keys a package record opens with, whose values a page's read joins in (see `V2_RECORD`). */
const OPENING = ['identifier', 'photographer'];
const packageKeys = Object.keys(contract.Package.shape);
if (packageKeys.slice(0, 2).join() !== OPENING.join())
  throw new Error('the v2 record no longer opens with its photographer');

/** The package's v2 text after its photographer (alias `p`): `,"active_website":...}`. */
const PACKAGE_V2_REST = drfText(
  membersText(
    packageKeys.slice(OPENING.length),
    keyValue('Package', 'p', {
      location: locationText('Package', 'p'),
      priority_tags: arrayText(
        recordText(contract.PriorityTag, 'PriorityTag', 't'),
        'FROM package_priority_tag l JOIN priority_tag t ON t.id = l.tag_id WHERE l.package_id = p.id',
      ),
      images: arrayText(
        imageText('i'),
        'FROM package_image l JOIN image i ON i.id = l.image_id WHERE l.package_id = p.id',
      ),
      simple_portfolio: arrayText(
        recordText(contract.SimplePortfolio, 'SimplePortfolio', 's'),
        'FROM package_simple_portfolio l JOIN simple_portfolio s ON s.id = l.portfolio_id WHERE l.package_id = p.id',
      ),
      linked_add_ons: arrayText(
        recordText(contract.LinkedAddOn, 'LinkedAddOn', 'l', {
          package_add_on_template: recordText(contract.AddOnTemplate, 'AddOnTemplate', 't'),
        }),
        'FROM linked_add_on l JOIN add_on_template t ON t.id = l.template_id WHERE l.package_id = p.id',
      ),
    }),
    ',',
    '}',
  ),
);

/**
 * A listed package's whole v2 record as one text, from the package row `p`, its document `d` and its
 * photographer's document `pd`: what a page's statement selects.
 */
export const V2_RECORD = `'{"identifier":"' || p.id || '","photographer":' || pd.v2 || d.v2_rest`;

/** The package's lists in the row shapes the store's list reads give (alias `p`). */
const listJson = (model: ModelName, alias: string, from: string, extra = '') =>
  `coalesce((SELECT json_agg(${jsonObject(model, alias, extra)} ORDER BY l.position) ${from}), '[]')`;

const PACKAGE_LISTS = `json_build_object(
  'images', ${listJson('Image', 'x', 'FROM package_image l JOIN image x ON x.id = l.image_id WHERE l.package_id = p.id')},
  'priorityTags', ${listJson('PriorityTag', 'x', 'FROM package_priority_tag l JOIN priority_tag x ON x.id = l.tag_id WHERE l.package_id = p.id')},
  'simplePortfolio', ${listJson('SimplePortfolio', 'x', 'FROM package_simple_portfolio l JOIN simple_portfolio x ON x.id = l.portfolio_id WHERE l.package_id = p.id')},
  'linkedAddOns', ${listJson('LinkedAddOn', 'l', 'FROM linked_add_on l JOIN add_on_template t ON t.id = l.template_id WHERE l.package_id = p.id', `'template', ${jsonObject('AddOnTemplate', 't')}`)})`;

/** The documents of the listed packages and of their photographers, as the tables hold them now. */
export const PACKAGE_DOCUMENTS = `SELECT p.id AS package_id, ${PACKAGE_V2_REST} AS v2_rest, ${PACKAGE_LISTS} AS lists
  FROM package p WHERE p.status = 1`;
// OFFSET 0 keeps the parts a subquery of their own, made once a photographer: pulled up into the select list, they
// were made again for their lengths (10,000 packages: 1.4 s against 0.7-1.1 s).
export const PHOTOGRAPHER_DOCUMENTS = `SELECT ph.id AS photographer_id, ${PHOTOGRAPHER_V2} AS v2,
    array_to_string(g.parts, '') AS graphql,
    (SELECT array_agg(octet_length(u.part) ORDER BY u.n) FROM unnest(g.parts) WITH ORDINALITY u(part, n))
      AS graphql_part_lengths
  FROM photographer ph CROSS JOIN LATERAL (SELECT ${PHOTOGRAPHER_GRAPHQL_PARTS} AS parts OFFSET 0) g
  WHERE ${LISTED('ph.id')}`;
