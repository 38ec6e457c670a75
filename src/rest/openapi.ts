// The OpenAPI 3.1 description of the v2 endpoint, served at /v2/openapi.json. Schemas follow the spec's
// tables (field order, types, nullability, decimal scales); a test validates real responses against them.
import { DEFAULT_LIMIT, MAX_LIMIT } from '../listing/page.js';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const uuid: Schema = { type: 'string', format: 'uuid' };
const url: Schema = { type: 'string', format: 'uri' };
const jsonText = (description: string): Schema => ({
  type: 'string',
  contentMediaType: 'application/json',
  description,
});
const decimal = (places: number): Schema => ({
  type: 'string',
  pattern: `^-?\\d+\\.\\d{${places}}$`,
  description: `Decimal number as a string with exactly ${places} decimal${places === 1 ? '' : 's'}.`,
});
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const list = (items: Schema): Schema => ({ type: 'array', items });

/** An object with exactly these properties, all required, in this order. */
function record(properties: [string, Schema][], description?: string): Schema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties: Object.fromEntries(properties),
    required: properties.map(([name]) => name),
    additionalProperties: false,
  };
}

const schemas: Record<string, Schema> = {
  Page: record(
    [
      ['count', int],
      ['next', nullable(url)],
      ['previous', nullable(url)],
      ['results', list(ref('Package'))],
    ],
    'One page of the listing.',
  ),
  Location: record([
    ['latitude', decimal(6)],
    ['longitude', decimal(6)],
    ['name', str],
  ]),
  Image: record([
    ['identifier', uuid],
    ['image', url],
    ['thumbnail', nullable(url)],
    ['mobile_thumbnail', nullable(url)],
    ['preload', nullable(url)],
    [
      'dimensions',
      record([
        ['width', int],
        ['height', int],
      ]),
    ],
    ['image_title', nullable(str)],
    ['filesize_mb', nullable(decimal(2))],
  ]),
  Review: record([
    ['identifier', uuid],
    ['rating', decimal(1)],
    ['url', url],
    ['number', int],
  ]),
  PriorityTag: record([
    ['identifier', uuid],
    ['tag', str],
    ['priority', int],
  ]),
  SimplePortfolio: record([
    ['identifier', uuid],
    ['category', int],
    ['bio', { type: 'string', description: 'HTML.' }],
  ]),
  LinkedAddOn: record([
    ['identifier', uuid],
    [
      'package_add_on_template',
      record([
        ['identifier', uuid],
        ['name', str],
        ['price', decimal(2)],
        ['quantity', int],
      ]),
    ],
  ]),
  Social: record([
    ['identifier', uuid],
    ['url', url],
    [
      'social_site',
      record([
        ['identifier', uuid],
        ['name', str],
        ['description', str],
        ['icon', { type: 'string', description: 'Icon class names.' }],
      ]),
    ],
  ]),
  CalendarWorkDay: record([
    ['identifier', uuid],
    ['work_times', jsonText('JSON text: [{"start":"900","end":"1700"}], clock times as HHMM integers in strings.')],
    ['day', { type: 'string', enum: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] }],
    ['shortcut', { type: 'string', minLength: 1, maxLength: 1 }],
    ['active', bool],
  ]),
  Photographer: record([
    ['identifier', uuid],
    ['name', str],
    ['login', nullable(str)],
    ['domain', nullable({ type: 'string', format: 'hostname' })],
    ['next_custom_domain', nullable({ type: 'string', format: 'hostname' })],
    ['created_at', { type: 'string', format: 'date-time', description: 'ISO 8601 UTC, microseconds, trailing Z.' }],
    ['display_image', nullable(url)],
    ['company_image', nullable(url)],
    ['favicon_image', nullable(url)],
    ['company_name', str],
    ['location', ref('Location')],
    ['calendars_json', nullable(jsonText('JSON text.'))],
    ['review', nullable(ref('Review'))],
    ['currency_code', { type: 'string', pattern: '^[a-z]{3}$' }],
    ['currency_symbol', str],
    ['override_currency_code', nullable(str)],
    ['override_currency_symbol', nullable(str)],
    ['payments_onboard_completed', bool],
    ['free_plus_marketplace_plan', bool],
    ['payments_user_id', str],
    ['socials', list(ref('Social'))],
    ['cover_image', list(ref('Image'))],
    ['phone', nullable({ type: 'string', pattern: '^\\d+$' })],
    ['background_color', nullable(str)],
    ['display_font', nullable(str)],
    ['secondary_font', nullable(str)],
    ['font_color', nullable(str)],
    ['tax_rate', decimal(4)],
    ['start_work_time', jsonText('JSON text {"hour":9,"minute":0}.')],
    ['end_work_time', jsonText('JSON text {"hour":17,"minute":0}; hour may be 24.')],
    ['calendar_work_days', { ...list(ref('CalendarWorkDay')), minItems: 7, maxItems: 7 }],
    ['crm_organization_id', nullable(str)],
    ['buffer', jsonText('JSON text {"hour":0,"minute":30}.')],
    ['is_creator_only', bool],
    ['active_website', nullable(uuid)],
    ['designed_by_platform', bool],
    ['active_subscription_name', nullable(str)],
    ['plan_external_website', bool],
  ]),
  Package: record([
    ['identifier', uuid],
    ['photographer', ref('Photographer')],
    ['active_website', nullable(uuid)],
    ['title', str],
    ['portrait_image', nullable(url)],
    ['landscape_image', nullable(url)],
    ['category', int],
    ['category_name', str],
    ['priority_tags', list(ref('PriorityTag'))],
    ['tag_keywords', { type: 'string', description: 'Comma-joined tag names with a trailing comma; empty when none.' }],
    ['hours_of_coverage', nullable(decimal(3))],
    ['number_of_photos_min', nullable(int)],
    ['number_of_photos_max', nullable(int)],
    ['days_to_delivery', nullable(int)],
    ['license_type', int],
    ['description', { type: 'string', description: 'HTML.' }],
    ['whats_included', { type: 'string', description: 'HTML.' }],
    ['what_to_expect', { type: 'string', description: 'HTML.' }],
    ['price', decimal(2)],
    ['payment_schedule', nullable(decimal(9))],
    ['deposit_fraction', nullable(decimal(9))],
    ['deposit', decimal(2)],
    ['faqs', { type: 'array', description: 'Item shape not specified.' }],
    ['cancellation_policy', nullable(str)],
    ['extension_policy', nullable(str)],
    ['weather_policy', nullable(str)],
    ['license_policy', nullable(str)],
    ['weeks_available', { description: 'Only null appears in the listing.' }],
    ['payment_schedule_policy', nullable(str)],
    ['add_ons_policy', nullable(str)],
    ['photo_uploaded', bool],
    ['location', ref('Location')],
    ['images', list(ref('Image'))],
    ['status', { type: 'integer', description: '1 on listed packages.' }],
    [
      'photographer_email',
      { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'E-mail address.' },
    ],
    ['contract_template', { description: 'Only null appears.' }],
    ['questionnaire_template', { description: 'Only null appears.' }],
    ['featured', bool],
    ['starting_at', bool],
    ['simple_portfolio', list(ref('SimplePortfolio'))],
    ['background_color', nullable(str)],
    ['placeholder_message', str],
    ['mini_sessions', { description: 'Only null appears.' }],
    ['video_url', { type: 'string', description: 'Empty string when none, otherwise a URL.' }],
    ['show_calendar', bool],
    ['use_time_picker', bool],
    ['linked_add_ons', list(ref('LinkedAddOn'))],
    ['url_slug', str],
    ['featured_position', nullable(int)],
    ['show_on_marketplace', bool],
    ['hide_from_explore', bool],
    ['collection_item_id', { description: 'Only null appears.' }],
    ['instant_booking', bool],
  ]),
  Error: record([['detail', str]], 'An error, as Django REST Framework reports it.'),
  Metadata: record([
    ['name', str],
    ['description', str],
    ['renders', list(str)],
    ['parses', list(str)],
  ]),
};

const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Package listing v2',
    version: '2',
    description:
      'The legacy read-only listing of bookable photography packages, as the Django REST Framework service rendered it. The same data is available over GraphQL at /graphql.',
  },
  paths: {
    '/v2/local-package-list/': {
      get: {
        operationId: 'listPackages',
        summary: 'A page of the listed packages in the seeded order.',
        parameters: [
          {
            name: 'format',
            in: 'query',
            schema: { type: 'string', enum: ['api', 'json'] },
            description: 'Response representation; both give this JSON.',
          },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'string' },
            description: `Page size, default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (larger values are capped). A value that is not a positive integer means the default.`,
          },
          {
            name: 'offset',
            in: 'query',
            schema: { type: 'string' },
            description:
              'Zero-based index of the first record, default 0. A value that is not a non-negative integer means 0.',
          },
          {
            name: 'seed',
            in: 'query',
            schema: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
            description: 'Fixes the pseudo-random order. When absent the service picks one and the links carry it.',
          },
        ],
        responses: {
          '200': json(ref('Page'), 'The page.'),
          '400': json(ref('Error'), 'The seed is not an integer.'),
          '404': json(ref('Error'), 'Unknown format.'),
          '405': json(ref('Error'), 'Method not allowed.'),
          '500': json(ref('Error'), 'Server error; no internals are shown.'),
        },
      },
      head: {
        operationId: 'headPackages',
        summary: 'As GET, without a body.',
        responses: { '200': { description: 'Headers only.' } },
      },
      options: {
        operationId: 'describePackages',
        summary: 'DRF metadata.',
        responses: { '200': json(ref('Metadata'), 'Metadata.') },
      },
    },
  },
  components: { schemas },
};
