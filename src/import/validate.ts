// Validates v2 Package records against the spec (shared/spec/package-listing-v2.md, section 2) before they are
// imported. It mirrors the contract's field table (shared/v2-contract/fields.mjs: exact keys in spec order, every
// field's type) and adds what a lossless round trip through the database needs:
// - decimals with exactly the stated decimals, no leading zeros and no negative zero, and no more digits before
//   the point than the column's precision (prisma/schema.prisma) holds;
// - integers that fit the integer columns, texts that PostgreSQL can store (no U+0000, no lone surrogate);
// - lower-case identifiers (the database returns UUIDs lower-case) and created_at in the one form the listing
//   writes (six fraction digits, left out when the microseconds are 0);
// - within one source, a shared record (photographer, image, social site, tag, portfolio entry, add-on template)
//   or a package that appears more than once must have the same content every time.
// Problems come back as { path, expected, got }, e.g. `photographer.calendar_work_days[2].work_times: expected
// JSON text of [{start, end}] HHMM strings, got "[{\"start\":\"0900\"}]"`.
import { createHash } from 'node:crypto';
import type { SharedKind } from '../db/write/rows.js';
import type { V2Package } from '../v2/records.js';
import { formatMicroTimestamp, parseMicroTimestamp } from '../v2/timestamp.js';

export interface Problem {
  /** Field path inside the record, e.g. `photographer.socials[0].url`; empty for the record itself. */
  path: string;
  expected: string;
  got: string;
}

/** A record's problems at most; the rest are counted, not listed. */
const MAX_PROBLEMS = 20;

type Kind = SharedKind | 'package';

/**
 * What one source has shown so far: a fingerprint of every shared record and package by identifier, so a repeated
 * copy is compared with the first, and which of them arrived since the last batch was written.
 */
export class SourceIndex {
  private readonly seen = new Map<Kind, Map<string, number>>();
  private readonly fresh = new Map<Kind, Set<string>>();

  fingerprint(kind: Kind, id: string): number | undefined {
    return this.seen.get(kind)?.get(id);
  }

  add(kind: Kind, id: string, fingerprint: number): void {
    id = flatCopy(id);
    const byId = this.seen.get(kind) ?? new Map<string, number>();
    this.seen.set(kind, byId);
    byId.set(id, fingerprint);
    const fresh = this.fresh.get(kind) ?? new Set<string>();
    this.fresh.set(kind, fresh);
    fresh.add(id);
  }

  /** Whether the record was shown before the current batch began (so a writer has it already). */
  inEarlierBatch(kind: Kind, id: string): boolean {
    return this.seen.get(kind)?.has(id) === true && this.fresh.get(kind)?.has(id) !== true;
  }

  /** Starts a new batch: everything shown so far counts as written. */
  nextBatch(): void {
    this.fresh.clear();
  }
}

/**
 * A copy of a (valid, so ASCII) identifier that holds only its own characters. Strings cut out of a larger one
 * (as a streaming parser's tokens are) may keep the whole input chunk they came from alive as long as they are.
 */
export function flatCopy(id: string): string {
  return Buffer.from(id, 'latin1').toString('latin1');
}

/** 48 bits of the SHA-1 of the text: a copy with other content differs with near certainty. */
function fingerprintOf(text: string): number {
  return createHash('sha1').update(text).digest().readUIntBE(0, 6);
}

interface Context {
  problems: Problem[];
  /** Problems beyond MAX_PROBLEMS. */
  more: number;
  index: SourceIndex | null;
}

type Check = (value: unknown, path: string, ctx: Context) => void;
type Fields = readonly (readonly [name: string, check: Check])[];

/** A value as it appears in a message: JSON, at most 80 characters, line separators escaped (one line). */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  const chars = Array.from(json);
  const cut = chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : json;
  return cut.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

function fail(ctx: Context, path: string, expected: string, got: unknown, shown = false): void {
  if (ctx.problems.length >= MAX_PROBLEMS) {
    ctx.more++;
    return;
  }
  ctx.problems.push({ path, expected, got: shown ? String(got) : show(got) });
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// --- scalars -----------------------------------------------------------------------------------------------------

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string a text column can hold as given. */
function storable(value: string, path: string, ctx: Context): boolean {
  if (value.includes('\u0000')) {
    fail(ctx, path, 'text without U+0000 (PostgreSQL text cannot hold it)', value);
    return false;
  }
  if (LONE_SURROGATE.test(value)) {
    fail(ctx, path, 'well-formed Unicode text (no lone surrogate)', value);
    return false;
  }
  return true;
}

/** A string that passes `test`, and is storable. */
const textWhere =
  (test: (v: string) => boolean, expected: string): Check =>
  (v, p, ctx) => {
    if (typeof v !== 'string' || !test(v)) fail(ctx, p, expected, v);
    else storable(v, p, ctx);
  };

const text = textWhere(() => true, 'a string');

const bool: Check = (v, p, ctx) => {
  if (typeof v !== 'boolean') fail(ctx, p, 'a boolean', v);
};

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const integer =
  (min = INT_MIN): Check =>
  (v, p, ctx) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) fail(ctx, p, 'an integer', v);
    else if (v < min || v > INT_MAX) fail(ctx, p, `an integer from ${min} to ${INT_MAX} (an integer column)`, v);
  };
const int = integer();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const uuid: Check = (v, p, ctx) => {
  if (typeof v === 'string' && UUID.test(v)) return;
  if (typeof v === 'string' && UUID.test(v.toLowerCase())) {
    fail(ctx, p, 'a lower-case UUID string (the database returns identifiers in lower case)', v);
  } else fail(ctx, p, 'a UUID string', v);
};

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
const url = textWhere(isHttpUrl, 'an absolute http(s) URL');

const nullable =
  (check: Check): Check =>
  (v, p, ctx) => {
    if (v !== null) check(v, p, ctx);
  };

const onlyNull: Check = (v, p, ctx) => {
  if (v !== null) fail(ctx, p, 'null (the listing only ever shows null here)', v);
};

/**
 * A string-decimal with exactly `places` decimals in a numeric(precision, places) column: the database keeps the
 * value, not the text, so the text must be the one the listing writes back (no leading zeros, no "-0.00").
 */
function decimal(places: number, precision: number): Check {
  const shape = new RegExp(`^-?\\d+\\.\\d{${places}}$`);
  const digits = precision - places;
  const what = `a string-decimal with ${places} decimal${places === 1 ? '' : 's'}`;
  return (v, p, ctx) => {
    if (typeof v !== 'string' || !shape.test(v)) return fail(ctx, p, what, v);
    const whole = v.slice(v.startsWith('-') ? 1 : 0, v.indexOf('.'));
    if (whole.length > 1 && whole.startsWith('0')) return fail(ctx, p, `${what} without leading zeros`, v);
    if (whole.length > digits) {
      return fail(
        ctx,
        p,
        `${what} and at most ${digits} digits before the point (column numeric(${precision},${places}))`,
        v,
      );
    }
    if (v.startsWith('-') && /^-0\.0*$/.test(v)) fail(ctx, p, `${what} that is not negative zero`, v);
  };
}

function jsonText(shape: (parsed: unknown) => boolean, what: string): Check {
  return textWhere((v) => {
    try {
      return shape(JSON.parse(v));
    } catch {
      return false;
    }
  }, `JSON text of ${what}`);
}

const isClock = (o: unknown, maxHour: number) =>
  isObject(o) &&
  Object.keys(o).length === 2 &&
  Number.isInteger(o.hour) &&
  Number.isInteger(o.minute) &&
  (o.hour as number) >= 0 &&
  (o.hour as number) <= maxHour &&
  (o.minute as number) >= 0 &&
  (o.minute as number) < 60;

const isHHMM = (s: unknown) =>
  typeof s === 'string' && /^(0|[1-9]\d{0,3})$/.test(s) && Number(s) % 100 < 60 && Math.floor(Number(s) / 100) <= 24;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?Z$/;
const timestamp = textWhere((v) => {
  if (!TIMESTAMP.test(v) || v.startsWith('0000')) return false;
  const parsed = parseMicroTimestamp(v);
  // Formatting it back must give the same text: no 24:00, no 30 February, no ".000000".
  return parsed !== null && formatMicroTimestamp(parsed) === v;
}, 'an ISO 8601 UTC timestamp with six fraction digits (left out when the microseconds are 0) and a trailing Z');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HEX_COLOUR = /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const host = textWhere((v) => HOST.test(v), 'a host name');
const hexColour = textWhere((v) => HEX_COLOUR.test(v), 'a hex colour');

// --- records -------------------------------------------------------------------------------------------------------

/** An object with exactly the given keys in the given order (the listing writes them so), each field checked. */
function record(fields: Fields): Check {
  const want = fields.map(([name]) => name);
  return (v, p, ctx) => {
    if (!isObject(v)) return fail(ctx, p, 'an object', v);
    const got = Object.keys(v);
    if (got.length !== want.length || got.some((key, i) => key !== want[i])) {
      const missing = want.filter((k) => !Object.hasOwn(v, k));
      const extra = got.filter((k) => !want.includes(k));
      const detail =
        missing.length || extra.length
          ? `missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)}`
          : `key order differs from the spec at "${got.find((k, i) => k !== want[i])}"`;
      return fail(ctx, p, "an object with exactly the spec's keys in the spec's order", detail, true);
    }
    for (const [name, check] of fields) check(v[name], join(p, name), ctx);
  };
}

function arrayOf(check: Check, uniqueIdentifiers = false): Check {
  return (v, p, ctx) => {
    if (!Array.isArray(v)) return fail(ctx, p, 'an array', v);
    const ids = new Set<unknown>();
    v.forEach((item, i) => {
      check(item, `${p}[${i}]`, ctx);
      if (uniqueIdentifiers && isObject(item)) {
        if (ids.has(item.identifier)) {
          fail(ctx, `${p}[${i}].identifier`, 'an identifier not used by another entry of this list', item.identifier);
        }
        ids.add(item.identifier);
      }
    });
  };
}

const KIND_NAMES: Record<Kind, string> = {
  package: 'package',
  photographer: 'photographer',
  image: 'image',
  socialSite: 'social site',
  priorityTag: 'priority tag',
  portfolio: 'portfolio entry',
  addOnTemplate: 'add-on template',
};

/**
 * A record stored once per identifier. Its first copy in a source is checked field by field; a later copy must
 * be identical (compared by fingerprint), and then needs no second check. A differing copy is checked field by
 * field, so a broken field is reported as such rather than only as a difference.
 */
function shared(kind: SharedKind, fields: Fields): Check {
  const check = record(fields);
  return (v, p, ctx) => {
    const index = ctx.index;
    if (!index || !isObject(v) || typeof v.identifier !== 'string') return check(v, p, ctx);
    const fingerprint = fingerprintOf(JSON.stringify(v));
    const earlier = index.fingerprint(kind, v.identifier);
    if (earlier === undefined) {
      const before = ctx.problems.length + ctx.more;
      check(v, p, ctx);
      if (ctx.problems.length + ctx.more === before) index.add(kind, v.identifier, fingerprint);
    } else if (earlier !== fingerprint) {
      // A field that breaks the spec says more than "differs": report that when there is one.
      const before = ctx.problems.length + ctx.more;
      check(v, p, ctx);
      if (ctx.problems.length + ctx.more !== before) return;
      fail(
        ctx,
        p,
        `the same content as the earlier copy of ${KIND_NAMES[kind]} ${v.identifier} in this source (a shared record may not differ within one source)`,
        'a copy with other content',
        true,
      );
    }
  };
}

const Location: Fields = [
  ['latitude', decimal(6, 9)],
  ['longitude', decimal(6, 9)],
  ['name', text],
];

const dimensions: Check = (v, p, ctx) => {
  const ok =
    isObject(v) &&
    Object.keys(v).join() === 'width,height' &&
    Number.isInteger(v.width) &&
    Number.isInteger(v.height) &&
    (v.width as number) > 0 &&
    (v.height as number) > 0 &&
    (v.width as number) <= INT_MAX &&
    (v.height as number) <= INT_MAX;
  if (!ok) fail(ctx, p, '{width, height} (in that order), positive integers', v);
};

const Image: Fields = [
  ['identifier', uuid],
  ['image', url],
  ['thumbnail', nullable(url)],
  ['mobile_thumbnail', nullable(url)],
  ['preload', nullable(url)],
  ['dimensions', dimensions],
  ['image_title', nullable(text)],
  ['filesize_mb', nullable(decimal(2, 12))],
];

const Review: Fields = [
  ['identifier', uuid],
  ['rating', decimal(1, 4)],
  ['url', url],
  ['number', int],
];

const PriorityTag: Fields = [
  ['identifier', uuid],
  ['tag', text],
  ['priority', int],
];

const SimplePortfolio: Fields = [
  ['identifier', uuid],
  ['category', int],
  ['bio', text],
];

const AddOnTemplate: Fields = [
  ['identifier', uuid],
  ['name', text],
  ['price', decimal(2, 14)],
  ['quantity', int],
];

const LinkedAddOn: Fields = [
  ['identifier', uuid],
  ['package_add_on_template', shared('addOnTemplate', AddOnTemplate)],
];

const SocialSite: Fields = [
  ['identifier', uuid],
  ['name', text],
  ['description', text],
  ['icon', text],
];

const Social: Fields = [
  ['identifier', uuid],
  ['url', url],
  ['social_site', shared('socialSite', SocialSite)],
];

const CalendarWorkDay: Fields = [
  ['identifier', uuid],
  [
    'work_times',
    jsonText(
      (a) =>
        Array.isArray(a) &&
        a.every((r) => isObject(r) && Object.keys(r).length === 2 && isHHMM(r.start) && isHHMM(r.end)),
      '[{start, end}] HHMM strings',
    ),
  ],
  ['day', textWhere((v) => WEEKDAYS.includes(v), 'an English weekday name')],
  ['shortcut', textWhere((v) => v.length === 1, 'a one-letter day abbreviation')],
  ['active', bool],
];

const calendarWorkDays: Check = (v, p, ctx) => {
  const before = ctx.problems.length + ctx.more;
  arrayOf(record(CalendarWorkDay), true)(v, p, ctx);
  if (ctx.problems.length + ctx.more !== before || !Array.isArray(v)) return;
  const days = v.map((d: { day: string }) => d.day).sort();
  if (days.length !== 7 || new Set(days).size !== 7) fail(ctx, p, 'one entry per weekday', days);
};

const Photographer: Fields = [
  ['identifier', uuid],
  ['name', text],
  ['login', nullable(text)],
  ['domain', nullable(host)],
  ['next_custom_domain', nullable(host)],
  ['created_at', timestamp],
  ['display_image', nullable(url)],
  ['company_image', nullable(url)],
  ['favicon_image', nullable(url)],
  ['company_name', text],
  ['location', record(Location)],
  ['calendars_json', nullable(jsonText(() => true, 'any JSON value'))],
  ['review', nullable(record(Review))],
  ['currency_code', textWhere((v) => /^[a-z]{3}$/.test(v), 'a lower-case currency code')],
  ['currency_symbol', text],
  ['override_currency_code', nullable(text)],
  ['override_currency_symbol', nullable(text)],
  ['payments_onboard_completed', bool],
  ['free_plus_marketplace_plan', bool],
  ['payments_user_id', text],
  ['socials', arrayOf(record(Social), true)],
  ['cover_image', arrayOf(shared('image', Image))],
  ['phone', nullable(textWhere((v) => /^\d+$/.test(v), 'digits only'))],
  ['background_color', nullable(hexColour)],
  ['display_font', nullable(text)],
  ['secondary_font', nullable(text)],
  ['font_color', nullable(hexColour)],
  ['tax_rate', decimal(4, 10)],
  ['start_work_time', jsonText((o) => isClock(o, 23), '{hour, minute}')],
  ['end_work_time', jsonText((o) => isClock(o, 24), '{hour, minute} (hour up to 24)')],
  ['calendar_work_days', calendarWorkDays],
  ['crm_organization_id', nullable(text)],
  ['buffer', jsonText((o) => isClock(o, 24), '{hour, minute}')],
  ['is_creator_only', bool],
  ['active_website', nullable(uuid)],
  ['designed_by_platform', bool],
  ['active_subscription_name', nullable(text)],
  ['plan_external_website', bool],
];

/** Any JSON value (faqs items), kept in a json column as given: only its texts (keys too) must be storable. */
const anyJson: Check = (v, p, ctx) => {
  if (typeof v === 'string') storable(v, p, ctx);
  else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) anyJson(v[i], `${p}[${i}]`, ctx);
  } else if (isObject(v)) {
    for (const [key, item] of Object.entries(v)) {
      if (storable(key, `${p} key ${JSON.stringify(key)}`, ctx)) anyJson(item, join(p, key), ctx);
    }
  }
};

const Package: Fields = [
  ['identifier', uuid],
  ['photographer', shared('photographer', Photographer)],
  ['active_website', nullable(uuid)],
  ['title', text],
  ['portrait_image', nullable(url)],
  ['landscape_image', nullable(url)],
  ['category', int],
  ['category_name', text],
  ['priority_tags', arrayOf(shared('priorityTag', PriorityTag))],
  ['tag_keywords', textWhere((v) => v === '' || v.endsWith(','), "'' or comma-joined names with a trailing comma")],
  ['hours_of_coverage', nullable(decimal(3, 12))],
  ['number_of_photos_min', nullable(int)],
  ['number_of_photos_max', nullable(int)],
  ['days_to_delivery', nullable(int)],
  ['license_type', int],
  ['description', text],
  ['whats_included', text],
  ['what_to_expect', text],
  ['price', decimal(2, 14)],
  ['payment_schedule', nullable(decimal(9, 20))],
  ['deposit_fraction', nullable(decimal(9, 20))],
  ['deposit', decimal(2, 14)],
  ['faqs', arrayOf(anyJson)],
  ['cancellation_policy', nullable(text)],
  ['extension_policy', nullable(text)],
  ['weather_policy', nullable(text)],
  ['license_policy', nullable(text)],
  ['weeks_available', onlyNull],
  ['payment_schedule_policy', nullable(text)],
  ['add_ons_policy', nullable(text)],
  ['photo_uploaded', bool],
  ['location', record(Location)],
  ['images', arrayOf(shared('image', Image))],
  // The listing shows status 1 only; any integer is taken, so a newer copy can also take a package off the list.
  ['status', int],
  ['photographer_email', textWhere((v) => EMAIL.test(v), 'an e-mail address')],
  ['contract_template', onlyNull],
  ['questionnaire_template', onlyNull],
  ['featured', bool],
  ['starting_at', bool],
  ['simple_portfolio', arrayOf(shared('portfolio', SimplePortfolio))],
  ['background_color', nullable(text)],
  ['placeholder_message', text],
  ['mini_sessions', onlyNull],
  ['video_url', textWhere((v) => v === '' || isHttpUrl(v), "'' or an absolute http(s) URL")],
  ['show_calendar', bool],
  ['use_time_picker', bool],
  ['linked_add_ons', arrayOf(record(LinkedAddOn), true)],
  ['url_slug', text],
  ['featured_position', nullable(int)],
  ['show_on_marketplace', bool],
  ['hide_from_explore', bool],
  ['collection_item_id', onlyNull],
  ['instant_booking', bool],
];

const checkPackage = record(Package);

/** Spec 2.2 rule 2 and the photo count range (as the contract's checkPackageRules). */
function packageRules(p: Record<string, unknown>, ctx: Context): void {
  if (p.deposit_fraction !== null && p.payment_schedule !== null) {
    fail(ctx, 'payment_schedule', 'null when deposit_fraction is set (spec 2.2 rule 2)', p.payment_schedule);
  }
  const min = p.number_of_photos_min;
  const max = p.number_of_photos_max;
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    fail(ctx, 'number_of_photos_max', `at least number_of_photos_min (${min})`, max);
  }
}

export interface Checked {
  /** The record, when it has no problem. */
  record: V2Package | null;
  problems: Problem[];
  /** Problems found beyond those listed. */
  moreProblems: number;
  /** The record's identifier when it has a string one (valid or not), for messages. */
  identifier: string | null;
  /** An identical copy of a package already shown in this source. */
  repeat: boolean;
  /** About how many characters the record holds besides its photographer (for sizing write batches). */
  weight: number;
}

/**
 * Checks Package records; with a SourceIndex (one per source) also that repeated copies of a package or a shared
 * record within the source are identical.
 */
export class PackageValidator {
  constructor(private readonly index: SourceIndex | null = new SourceIndex()) {}

  validate(value: unknown): Checked {
    const ctx: Context = { problems: [], more: 0, index: this.index };
    const identifier = isObject(value) && typeof value.identifier === 'string' ? value.identifier : null;
    if (!isObject(value)) {
      fail(ctx, '', 'a Package record (an object)', value);
      return { record: null, problems: ctx.problems, moreProblems: 0, identifier, repeat: false, weight: 0 };
    }
    // The package without its photographer (checked on its own, as a shared record): repeats and batch sizes.
    const own = JSON.stringify({
      ...value,
      photographer: isObject(value.photographer) ? value.photographer.identifier : null,
    });
    const fingerprint = fingerprintOf(own);
    if (identifier !== null && this.index) {
      const earlier = this.index.fingerprint('package', identifier);
      if (earlier !== undefined) {
        // Its photographer is compared too: an identical package may still embed another copy of it.
        if (earlier === fingerprint) shared('photographer', Photographer)(value.photographer, 'photographer', ctx);
        else {
          fail(
            ctx,
            '',
            `the same content as the earlier copy of package ${identifier} in this source (a record may appear once per source, or repeat identically)`,
            'a copy with other content',
            true,
          );
        }
        return {
          record: ctx.problems.length === 0 ? (value as unknown as V2Package) : null,
          problems: ctx.problems,
          moreProblems: ctx.more,
          identifier,
          repeat: ctx.problems.length === 0,
          weight: own.length,
        };
      }
    }
    checkPackage(value, '', ctx);
    if (ctx.problems.length === 0) packageRules(value, ctx);
    const valid = ctx.problems.length === 0;
    if (valid && identifier !== null) this.index?.add('package', identifier, fingerprint);
    return {
      record: valid ? (value as unknown as V2Package) : null,
      problems: ctx.problems,
      moreProblems: ctx.more,
      identifier,
      repeat: false,
      weight: own.length,
    };
  }
}

/** `results[3].photographer.socials[0].url: expected ..., got ...` */
export function describeProblem(problem: Problem, prefix = ''): string {
  const path = problem.path === '' ? prefix : prefix === '' ? problem.path : joinPath(prefix, problem.path);
  return `${path === '' ? 'record' : path}: expected ${problem.expected}, got ${problem.got}`;
}

function joinPath(prefix: string, path: string): string {
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}
