// The legacy v2 listing's records, as the spec (package-listing-v2.md, section 2) lays them out: snake_case
// names, keys in the spec's table order. Decimals are strings with the spec's exact scale; the JSON-text
// fields are strings holding JSON text. The demo generator produces these, the importer reads them and the
// REST shim renders them.

export type Decimal = string;
export type Uuid = string;

export interface V2Location {
  latitude: Decimal; // 6 decimals
  longitude: Decimal; // 6 decimals
  name: string;
}

export interface V2Image {
  identifier: Uuid;
  image: string;
  thumbnail: string | null;
  mobile_thumbnail: string | null;
  preload: string | null;
  dimensions: { width: number; height: number };
  image_title: string | null;
  filesize_mb: Decimal | null; // 2 decimals
}

export interface V2Review {
  identifier: Uuid;
  rating: Decimal; // 1 decimal
  url: string;
  number: number;
}

export interface V2PriorityTag {
  identifier: Uuid;
  tag: string;
  priority: number;
}

export interface V2SimplePortfolio {
  identifier: Uuid;
  category: number;
  bio: string;
}

export interface V2AddOnTemplate {
  identifier: Uuid;
  name: string;
  price: Decimal; // 2 decimals
  quantity: number;
}

export interface V2LinkedAddOn {
  identifier: Uuid;
  package_add_on_template: V2AddOnTemplate;
}

export interface V2SocialSite {
  identifier: Uuid;
  name: string;
  description: string;
  icon: string;
}

export interface V2Social {
  identifier: Uuid;
  url: string;
  social_site: V2SocialSite;
}

export interface V2CalendarWorkDay {
  identifier: Uuid;
  work_times: string; // JSON text: [{"start":"900","end":"1700"}]
  day: string;
  shortcut: string;
  active: boolean;
}

export interface V2Photographer {
  identifier: Uuid;
  name: string;
  login: string | null;
  domain: string | null;
  next_custom_domain: string | null;
  created_at: string; // ISO 8601 UTC, microseconds, trailing Z
  display_image: string | null;
  company_image: string | null;
  favicon_image: string | null;
  company_name: string;
  location: V2Location;
  calendars_json: string | null;
  review: V2Review | null;
  currency_code: string;
  currency_symbol: string;
  override_currency_code: string | null;
  override_currency_symbol: string | null;
  payments_onboard_completed: boolean;
  free_plus_marketplace_plan: boolean;
  payments_user_id: string;
  socials: V2Social[];
  cover_image: V2Image[];
  phone: string | null;
  background_color: string | null;
  display_font: string | null;
  secondary_font: string | null;
  font_color: string | null;
  tax_rate: Decimal; // 4 decimals
  start_work_time: string; // JSON text {"hour":9,"minute":0}
  end_work_time: string; // JSON text, hour may be 24
  calendar_work_days: V2CalendarWorkDay[];
  crm_organization_id: string | null;
  buffer: string; // JSON text {"hour":0,"minute":30}
  is_creator_only: boolean;
  active_website: Uuid | null;
  designed_by_platform: boolean;
  active_subscription_name: string | null;
  plan_external_website: boolean;
}

/** Any JSON value: the fields whose shape the spec does not show are kept as given. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface V2Package {
  identifier: Uuid;
  photographer: V2Photographer;
  active_website: Uuid | null;
  title: string;
  portrait_image: string | null;
  landscape_image: string | null;
  category: number;
  category_name: string;
  priority_tags: V2PriorityTag[];
  tag_keywords: string;
  hours_of_coverage: Decimal | null; // 3 decimals
  number_of_photos_min: number | null;
  number_of_photos_max: number | null;
  days_to_delivery: number | null;
  license_type: number;
  description: string;
  whats_included: string;
  what_to_expect: string;
  price: Decimal; // 2 decimals
  payment_schedule: Decimal | null; // 9 decimals
  deposit_fraction: Decimal | null; // 9 decimals
  deposit: Decimal; // 2 decimals
  faqs: JsonValue[];
  cancellation_policy: string | null;
  extension_policy: string | null;
  weather_policy: string | null;
  license_policy: string | null;
  weeks_available: JsonValue;
  payment_schedule_policy: string | null;
  add_ons_policy: string | null;
  photo_uploaded: boolean;
  location: V2Location;
  images: V2Image[];
  status: number;
  photographer_email: string;
  contract_template: JsonValue;
  questionnaire_template: JsonValue;
  featured: boolean;
  starting_at: boolean;
  simple_portfolio: V2SimplePortfolio[];
  background_color: string | null;
  placeholder_message: string;
  mini_sessions: JsonValue;
  video_url: string;
  show_calendar: boolean;
  use_time_picker: boolean;
  linked_add_ons: V2LinkedAddOn[];
  url_slug: string;
  featured_position: number | null;
  show_on_marketplace: boolean;
  hide_from_explore: boolean;
  collection_item_id: JsonValue;
  instant_booking: boolean;
}

export interface V2Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: V2Package[];
}
