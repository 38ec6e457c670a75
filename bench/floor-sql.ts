// The floor's one statement: the whole v2 page (envelope and 50 records with everything nested) built as JSON text
// inside PostgreSQL. Keys in the spec's order (src/rest/record.ts); decimals as text keep their column's scale
// ("1500.00"); json columns are embedded as stored. json_build_object for the nested objects, json_agg for the
// lists, row_to_json for the 56-key package record (json_build_object takes at most 100 arguments).

const image = (alias: string) => `json_build_object(
      'identifier', ${alias}.id, 'image', ${alias}.image, 'thumbnail', ${alias}.thumbnail,
      'mobile_thumbnail', ${alias}.mobile_thumbnail, 'preload', ${alias}.preload,
      'dimensions', json_build_object('width', ${alias}.width, 'height', ${alias}.height),
      'image_title', ${alias}.image_title, 'filesize_mb', ${alias}.filesize_mb::text)`;

const location = (alias: string) =>
  `json_build_object('latitude', ${alias}.latitude::text, 'longitude', ${alias}.longitude::text, 'name', ${alias}.location_name)`;

// created_at as the product renders it: ISO 8601 UTC, six fraction digits from created_at_micros, none when 0.
const createdAt = `to_char(ph.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
      || CASE WHEN ph.created_at_micros = 0 THEN 'Z' ELSE '.' || lpad(ph.created_at_micros::text, 6, '0') || 'Z' END`;

const PHOTOGRAPHER = `(SELECT json_build_object(
    'identifier', ph.id, 'name', ph.name, 'login', ph.login, 'domain', ph.domain,
    'next_custom_domain', ph.next_custom_domain, 'created_at', ${createdAt},
    'display_image', ph.display_image, 'company_image', ph.company_image, 'favicon_image', ph.favicon_image,
    'company_name', ph.company_name, 'location', ${location('ph')}, 'calendars_json', ph.calendars_json,
    'review', (SELECT json_build_object('identifier', rv.id, 'rating', rv.rating::text, 'url', rv.url, 'number', rv.number)
               FROM review rv WHERE rv.photographer_id = ph.id),
    'currency_code', ph.currency_code, 'currency_symbol', ph.currency_symbol,
    'override_currency_code', ph.override_currency_code, 'override_currency_symbol', ph.override_currency_symbol,
    'payments_onboard_completed', ph.payments_onboard_completed,
    'free_plus_marketplace_plan', ph.free_plus_marketplace_plan, 'payments_user_id', ph.payments_user_id,
    'socials', coalesce((SELECT json_agg(json_build_object('identifier', s.id, 'url', s.url,
                  'social_site', json_build_object('identifier', ss.id, 'name', ss.name,
                                                   'description', ss.description, 'icon', ss.icon))
                  ORDER BY s.position)
               FROM social s JOIN social_site ss ON ss.id = s.social_site_id
               WHERE s.photographer_id = ph.id), '[]'),
    'cover_image', coalesce((SELECT json_agg(${image('ci')} ORDER BY pci.position)
               FROM photographer_cover_image pci JOIN image ci ON ci.id = pci.image_id
               WHERE pci.photographer_id = ph.id), '[]'),
    'phone', ph.phone, 'background_color', ph.background_color, 'display_font', ph.display_font,
    'secondary_font', ph.secondary_font, 'font_color', ph.font_color, 'tax_rate', ph.tax_rate::text,
    'start_work_time', ph.start_work_time, 'end_work_time', ph.end_work_time,
    'calendar_work_days', coalesce((SELECT json_agg(json_build_object('identifier', d.id, 'work_times', d.work_times,
                  'day', d.day, 'shortcut', d.shortcut, 'active', d.active) ORDER BY d.position)
               FROM calendar_work_day d WHERE d.photographer_id = ph.id), '[]'),
    'crm_organization_id', ph.crm_organization_id, 'buffer', ph.buffer, 'is_creator_only', ph.is_creator_only,
    'active_website', ph.active_website, 'designed_by_platform', ph.designed_by_platform,
    'active_subscription_name', ph.active_subscription_name, 'plan_external_website', ph.plan_external_website)
  FROM photographer ph WHERE ph.id = p.photographer_id)`;

// Keys in the spec's order (src/rest/record.ts). Decimals as text keep their column's scale ("1500.00").
// Exported for ../shared/anchors/physical-limit, which keeps each record's text made by this very SELECT.
export const PACKAGE = `SELECT p.id AS identifier, ${PHOTOGRAPHER} AS photographer,
    p.active_website, p.title, p.portrait_image, p.landscape_image, p.category, p.category_name,
    coalesce((SELECT json_agg(json_build_object('identifier', t.id, 'tag', t.tag, 'priority', t.priority)
                ORDER BY ppt.position)
              FROM package_priority_tag ppt JOIN priority_tag t ON t.id = ppt.tag_id
              WHERE ppt.package_id = p.id), '[]') AS priority_tags,
    p.tag_keywords, p.hours_of_coverage::text AS hours_of_coverage, p.number_of_photos_min,
    p.number_of_photos_max, p.days_to_delivery, p.license_type, p.description, p.whats_included,
    p.what_to_expect, p.price::text AS price, p.payment_schedule::text AS payment_schedule,
    p.deposit_fraction::text AS deposit_fraction, p.deposit::text AS deposit, p.faqs,
    p.cancellation_policy, p.extension_policy, p.weather_policy, p.license_policy, p.weeks_available,
    p.payment_schedule_policy, p.add_ons_policy, p.photo_uploaded, ${location('p')} AS location,
    coalesce((SELECT json_agg(${image('i')} ORDER BY pi.position)
              FROM package_image pi JOIN image i ON i.id = pi.image_id
              WHERE pi.package_id = p.id), '[]') AS images,
    p.status, p.photographer_email, p.contract_template, p.questionnaire_template, p.featured, p.starting_at,
    coalesce((SELECT json_agg(json_build_object('identifier', sp.id, 'category', sp.category, 'bio', sp.bio)
                ORDER BY psp.position)
              FROM package_simple_portfolio psp JOIN simple_portfolio sp ON sp.id = psp.portfolio_id
              WHERE psp.package_id = p.id), '[]') AS simple_portfolio,
    p.background_color, p.placeholder_message, p.mini_sessions, p.video_url, p.show_calendar,
    p.use_time_picker,
    coalesce((SELECT json_agg(json_build_object('identifier', l.id,
                  'package_add_on_template', json_build_object('identifier', a.id, 'name', a.name,
                                                               'price', a.price::text, 'quantity', a.quantity))
                ORDER BY l.position)
              FROM linked_add_on l JOIN add_on_template a ON a.id = l.template_id
              WHERE l.package_id = p.id), '[]') AS linked_add_ons,
    p.url_slug, p.featured_position, p.show_on_marketplace, p.hide_from_explore, p.collection_item_id,
    p.instant_booking`;

/** $1 positions (display order), $2 count, $3 next link, $4 previous link. */
export const PAGE_SQL = `SELECT json_build_object(
  'count', $2::int, 'next', $3::text, 'previous', $4::text,
  'results', coalesce((
    SELECT json_agg(row_to_json(r) ORDER BY array_position($1::int[], le.position))
    FROM listing_entry le
    JOIN package p ON p.id = le.package_id
    CROSS JOIN LATERAL (${PACKAGE}) r
    WHERE le.position = ANY($1::int[])), '[]'))::text AS page`;
