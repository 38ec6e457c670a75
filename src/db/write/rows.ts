// Turns v2 Package records into table rows, keyed by column name. A column takes the record's field of the same
// name (the v2 names are the column names), so only what differs is written here: identifiers (`identifier` ->
// `id`), owners and positions, and the values the listing nests (location, dimensions) or splits (created_at).
// Records that several packages share come out once per identifier; nested lists keep their order in `position`.

import type { V2Image, V2Package, V2Photographer } from '../../v2/records.js';
import { parseMicroTimestamp } from '../../v2/timestamp.js';
import { type ModelName, scalarFields } from '../columns.js';
import { type SharedKind, sharedTables, TABLES } from './tables.js';

export type Row = Record<string, unknown>;
/** Every table's rows for a set of packages, by table name. */
export type Rows = Record<string, Row[]>;

const columns = new Map<ModelName, string[]>();
const columnsOf = (model: ModelName) => {
  let list = columns.get(model);
  if (!list) {
    list = scalarFields(model).map((field) => field.column);
    columns.set(model, list);
  }
  return list;
};

/** The model's row: each column from `given`, else from the record's field of the same name. */
function rowOf(model: ModelName, record: object, given: Row): Row {
  const row: Row = {};
  for (const column of columnsOf(model)) {
    if (column in given) row[column] = given[column];
    else if (column in record) row[column] = (record as Row)[column];
    else throw new Error(`no value for ${model}.${column}`);
  }
  return row;
}

const located = (location: { latitude: string; longitude: string; name: string }) => ({
  latitude: location.latitude,
  longitude: location.longitude,
  location_name: location.name,
});

function imageRow(image: V2Image): Row {
  return rowOf('Image', image, { id: image.identifier, ...image.dimensions });
}

function photographerRow(p: V2Photographer): Row {
  const created = parseMicroTimestamp(p.created_at);
  if (!created) {
    throw new Error(`photographer ${p.identifier}: created_at ${JSON.stringify(p.created_at)} is not an ISO timestamp`);
  }
  return rowOf('Photographer', p, {
    id: p.identifier,
    // timestamptz(3) would round the microseconds; they travel beside it, the column keeps the millisecond.
    created_at: created.date.toISOString(),
    created_at_micros: created.micros,
    calendars_json: p.calendars_json,
    ...located(p.location),
  });
}

function packageRow(p: V2Package): Row {
  return rowOf('Package', p, { id: p.identifier, photographer_id: p.photographer.identifier, ...located(p.location) });
}

export interface ToRowsOptions {
  /**
   * Leaves out a shared record (a photographer with everything it owns) that is already written, e.g. by an
   * earlier batch of the same import; the rows that link to it are still produced.
   */
  skip?: (kind: SharedKind, id: string) => boolean;
}

/** Keeps the first row seen for each id. */
class Unique {
  private readonly byId = new Map<string, Row>();
  add(id: string, make: () => Row): void {
    if (!this.byId.has(id)) this.byId.set(id, make());
  }
  rows(): Row[] {
    return [...this.byId.values()];
  }
}

/**
 * Rows of a set of packages. A photographer's review, socials and calendar days are rows it owns: they come out
 * once per photographer and are never merged by identifier across photographers, so a writer sees (and can
 * refuse) an identifier that two owners claim. With `skip`, shared records already written are left out.
 */
export function toRows(records: Iterable<V2Package>, options: ToRowsOptions = {}): Rows {
  const skip = options.skip ?? (() => false);
  const rows: Rows = Object.fromEntries(TABLES.map((table) => [table.name, []]));
  const unique = new Map(sharedTables().map((table) => [table.name, { kind: table.owner.shared, rows: new Unique() }]));
  /** A shared record's row, once per identifier, unless it is written already. */
  const once = (table: string, id: string, make: () => Row) => {
    const shared = unique.get(table);
    if (shared && !skip(shared.kind, id)) shared.rows.add(id, make);
  };
  const push = (table: string, row: Row) => rows[table]?.push(row);
  const seenPhotographers = new Set<string>();

  function addPhotographer(owner: V2Photographer): void {
    const photographer_id = owner.identifier;
    once('photographer', owner.identifier, () => photographerRow(owner));
    if (owner.review) push('review', rowOf('Review', owner.review, { id: owner.review.identifier, photographer_id }));
    owner.socials.forEach((social, position) => {
      const site = social.social_site;
      once('social_site', site.identifier, () => rowOf('SocialSite', site, { id: site.identifier }));
      push(
        'social',
        rowOf('Social', social, { id: social.identifier, photographer_id, position, social_site_id: site.identifier }),
      );
    });
    owner.cover_image.forEach((image, position) => {
      once('image', image.identifier, () => imageRow(image));
      push('photographer_cover_image', { photographer_id, position, image_id: image.identifier });
    });
    owner.calendar_work_days.forEach((day, position) => {
      push('calendar_work_day', rowOf('CalendarWorkDay', day, { id: day.identifier, photographer_id, position }));
    });
  }

  for (const record of records) {
    const owner = record.photographer;
    if (!seenPhotographers.has(owner.identifier)) {
      seenPhotographers.add(owner.identifier);
      if (!skip('photographer', owner.identifier)) addPhotographer(owner);
    }
    const package_id = record.identifier;
    push('package', packageRow(record));
    record.images.forEach((image, position) => {
      once('image', image.identifier, () => imageRow(image));
      push('package_image', { package_id, position, image_id: image.identifier });
    });
    record.priority_tags.forEach((tag, position) => {
      once('priority_tag', tag.identifier, () => rowOf('PriorityTag', tag, { id: tag.identifier }));
      push('package_priority_tag', { package_id, position, tag_id: tag.identifier });
    });
    record.simple_portfolio.forEach((entry, position) => {
      once('simple_portfolio', entry.identifier, () => rowOf('SimplePortfolio', entry, { id: entry.identifier }));
      push('package_simple_portfolio', { package_id, position, portfolio_id: entry.identifier });
    });
    record.linked_add_ons.forEach((link, position) => {
      const template = link.package_add_on_template;
      once('add_on_template', template.identifier, () => rowOf('AddOnTemplate', template, { id: template.identifier }));
      push('linked_add_on', { id: link.identifier, package_id, position, template_id: template.identifier });
    });
  }
  for (const [table, shared] of unique) rows[table] = shared.rows.rows();
  return rows;
}
