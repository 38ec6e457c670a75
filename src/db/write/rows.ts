// Turns v2 Package records into table rows. Records that several packages share (photographer, image,
// tag, portfolio entry, add-on template, social site) come out once per identifier; nested arrays keep
// their order in `position`.
import { Prisma } from '../../generated/prisma/client.js';
import type {
  AddOnTemplateCreateManyInput,
  CalendarWorkDayCreateManyInput,
  ImageCreateManyInput,
  LinkedAddOnCreateManyInput,
  PackageCreateManyInput,
  PackageImageCreateManyInput,
  PackagePriorityTagCreateManyInput,
  PackageSimplePortfolioCreateManyInput,
  PhotographerCoverImageCreateManyInput,
  PhotographerCreateManyInput,
  PriorityTagCreateManyInput,
  ReviewCreateManyInput,
  SimplePortfolioCreateManyInput,
  SocialCreateManyInput,
  SocialSiteCreateManyInput,
} from '../../generated/prisma/models.js';
import type { JsonValue, V2Image, V2Package, V2Photographer } from '../../v2/records.js';
import { parseMicroTimestamp } from '../../v2/timestamp.js';

/** Every table's rows for a set of packages, in an order that satisfies the foreign keys. */
export interface Rows {
  photographers: PhotographerCreateManyInput[];
  reviews: ReviewCreateManyInput[];
  images: ImageCreateManyInput[];
  socialSites: SocialSiteCreateManyInput[];
  socials: SocialCreateManyInput[];
  coverImages: PhotographerCoverImageCreateManyInput[];
  calendarWorkDays: CalendarWorkDayCreateManyInput[];
  priorityTags: PriorityTagCreateManyInput[];
  portfolios: SimplePortfolioCreateManyInput[];
  addOnTemplates: AddOnTemplateCreateManyInput[];
  packages: PackageCreateManyInput[];
  packageImages: PackageImageCreateManyInput[];
  packagePriorityTags: PackagePriorityTagCreateManyInput[];
  packagePortfolios: PackageSimplePortfolioCreateManyInput[];
  linkedAddOns: LinkedAddOnCreateManyInput[];
}

/** A nullable JSON column: JSON null is stored as SQL NULL (the listing only ever shows null there). */
function nullableJson(value: JsonValue): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

function imageRow(image: V2Image): ImageCreateManyInput {
  return {
    id: image.identifier,
    image: image.image,
    thumbnail: image.thumbnail,
    mobileThumbnail: image.mobile_thumbnail,
    preload: image.preload,
    width: image.dimensions.width,
    height: image.dimensions.height,
    imageTitle: image.image_title,
    filesizeMb: image.filesize_mb,
  };
}

function photographerRow(p: V2Photographer): PhotographerCreateManyInput {
  const created = parseMicroTimestamp(p.created_at);
  if (!created)
    throw new Error(
      `photographer ${p.identifier}: created_at ${JSON.stringify(p.created_at)} is not an ISO 8601 UTC timestamp`,
    );
  return {
    id: p.identifier,
    name: p.name,
    login: p.login,
    domain: p.domain,
    nextCustomDomain: p.next_custom_domain,
    createdAt: created.date,
    createdAtMicros: created.micros,
    displayImage: p.display_image,
    companyImage: p.company_image,
    faviconImage: p.favicon_image,
    companyName: p.company_name,
    latitude: p.location.latitude,
    longitude: p.location.longitude,
    locationName: p.location.name,
    calendarsJson: p.calendars_json,
    currencyCode: p.currency_code,
    currencySymbol: p.currency_symbol,
    overrideCurrencyCode: p.override_currency_code,
    overrideCurrencySymbol: p.override_currency_symbol,
    paymentsOnboardCompleted: p.payments_onboard_completed,
    freePlusMarketplacePlan: p.free_plus_marketplace_plan,
    paymentsUserId: p.payments_user_id,
    phone: p.phone,
    backgroundColor: p.background_color,
    displayFont: p.display_font,
    secondaryFont: p.secondary_font,
    fontColor: p.font_color,
    taxRate: p.tax_rate,
    startWorkTime: p.start_work_time,
    endWorkTime: p.end_work_time,
    crmOrganizationId: p.crm_organization_id,
    buffer: p.buffer,
    isCreatorOnly: p.is_creator_only,
    activeWebsite: p.active_website,
    designedByPlatform: p.designed_by_platform,
    activeSubscriptionName: p.active_subscription_name,
    planExternalWebsite: p.plan_external_website,
  };
}

function packageRow(p: V2Package): PackageCreateManyInput {
  return {
    id: p.identifier,
    photographerId: p.photographer.identifier,
    activeWebsite: p.active_website,
    title: p.title,
    portraitImage: p.portrait_image,
    landscapeImage: p.landscape_image,
    category: p.category,
    categoryName: p.category_name,
    tagKeywords: p.tag_keywords,
    hoursOfCoverage: p.hours_of_coverage,
    numberOfPhotosMin: p.number_of_photos_min,
    numberOfPhotosMax: p.number_of_photos_max,
    daysToDelivery: p.days_to_delivery,
    licenseType: p.license_type,
    description: p.description,
    whatsIncluded: p.whats_included,
    whatToExpect: p.what_to_expect,
    price: p.price,
    paymentSchedule: p.payment_schedule,
    depositFraction: p.deposit_fraction,
    deposit: p.deposit,
    faqs: p.faqs as Prisma.InputJsonValue,
    cancellationPolicy: p.cancellation_policy,
    extensionPolicy: p.extension_policy,
    weatherPolicy: p.weather_policy,
    licensePolicy: p.license_policy,
    weeksAvailable: nullableJson(p.weeks_available),
    paymentSchedulePolicy: p.payment_schedule_policy,
    addOnsPolicy: p.add_ons_policy,
    photoUploaded: p.photo_uploaded,
    latitude: p.location.latitude,
    longitude: p.location.longitude,
    locationName: p.location.name,
    status: p.status,
    photographerEmail: p.photographer_email,
    contractTemplate: nullableJson(p.contract_template),
    questionnaireTemplate: nullableJson(p.questionnaire_template),
    featured: p.featured,
    startingAt: p.starting_at,
    backgroundColor: p.background_color,
    placeholderMessage: p.placeholder_message,
    miniSessions: nullableJson(p.mini_sessions),
    videoUrl: p.video_url,
    showCalendar: p.show_calendar,
    useTimePicker: p.use_time_picker,
    urlSlug: p.url_slug,
    featuredPosition: p.featured_position,
    showOnMarketplace: p.show_on_marketplace,
    hideFromExplore: p.hide_from_explore,
    collectionItemId: nullableJson(p.collection_item_id),
    instantBooking: p.instant_booking,
  };
}

/** The kinds of shared records: stored once per identifier, linked from the records that embed them. */
export type SharedKind = 'photographer' | 'image' | 'socialSite' | 'priorityTag' | 'portfolio' | 'addOnTemplate';

export interface ToRowsOptions {
  /**
   * Leaves out a shared record (a photographer with everything it owns) that is already written, e.g. by an
   * earlier batch of the same import; the rows that link to it are still produced.
   */
  skip?: (kind: SharedKind, id: string) => boolean;
}

/** Keeps the first row seen for each id. */
class Unique<T extends { id: string }> {
  private readonly byId = new Map<string, T>();
  add(row: T): void {
    if (!this.byId.has(row.id)) this.byId.set(row.id, row);
  }
  rows(): T[] {
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
  const photographers = new Unique<PhotographerCreateManyInput>();
  const images = new Unique<ImageCreateManyInput>();
  const socialSites = new Unique<SocialSiteCreateManyInput>();
  const priorityTags = new Unique<PriorityTagCreateManyInput>();
  const portfolios = new Unique<SimplePortfolioCreateManyInput>();
  const addOnTemplates = new Unique<AddOnTemplateCreateManyInput>();
  const seenPhotographers = new Set<string>();
  const rows: Rows = {
    photographers: [],
    reviews: [],
    images: [],
    socialSites: [],
    socials: [],
    coverImages: [],
    calendarWorkDays: [],
    priorityTags: [],
    portfolios: [],
    addOnTemplates: [],
    packages: [],
    packageImages: [],
    packagePriorityTags: [],
    packagePortfolios: [],
    linkedAddOns: [],
  };
  const addImage = (image: V2Image) => {
    if (!skip('image', image.identifier)) images.add(imageRow(image));
  };

  for (const record of records) {
    const owner = record.photographer;
    if (!seenPhotographers.has(owner.identifier)) {
      seenPhotographers.add(owner.identifier);
      if (!skip('photographer', owner.identifier)) addPhotographer(owner);
    }

    rows.packages.push(packageRow(record));
    record.images.forEach((image, position) => {
      addImage(image);
      rows.packageImages.push({ packageId: record.identifier, position, imageId: image.identifier });
    });
    record.priority_tags.forEach((tag, position) => {
      if (!skip('priorityTag', tag.identifier))
        priorityTags.add({ id: tag.identifier, tag: tag.tag, priority: tag.priority });
      rows.packagePriorityTags.push({ packageId: record.identifier, position, tagId: tag.identifier });
    });
    record.simple_portfolio.forEach((entry, position) => {
      if (!skip('portfolio', entry.identifier)) {
        portfolios.add({ id: entry.identifier, category: entry.category, bio: entry.bio });
      }
      rows.packagePortfolios.push({ packageId: record.identifier, position, portfolioId: entry.identifier });
    });
    record.linked_add_ons.forEach((link, position) => {
      const t = link.package_add_on_template;
      if (!skip('addOnTemplate', t.identifier)) {
        addOnTemplates.add({ id: t.identifier, name: t.name, price: t.price, quantity: t.quantity });
      }
      rows.linkedAddOns.push({ id: link.identifier, packageId: record.identifier, position, templateId: t.identifier });
    });
  }

  function addPhotographer(owner: V2Photographer): void {
    photographers.add(photographerRow(owner));
    if (owner.review) {
      const { identifier, rating, url, number } = owner.review;
      rows.reviews.push({ id: identifier, photographerId: owner.identifier, rating, url, number });
    }
    owner.socials.forEach((social, position) => {
      const site = social.social_site;
      if (!skip('socialSite', site.identifier)) {
        socialSites.add({ id: site.identifier, name: site.name, description: site.description, icon: site.icon });
      }
      rows.socials.push({
        id: social.identifier,
        photographerId: owner.identifier,
        position,
        url: social.url,
        socialSiteId: site.identifier,
      });
    });
    owner.cover_image.forEach((image, position) => {
      addImage(image);
      rows.coverImages.push({ photographerId: owner.identifier, position, imageId: image.identifier });
    });
    owner.calendar_work_days.forEach((day, position) => {
      rows.calendarWorkDays.push({
        id: day.identifier,
        photographerId: owner.identifier,
        position,
        workTimes: day.work_times,
        day: day.day,
        shortcut: day.shortcut,
        active: day.active,
      });
    });
  }

  rows.photographers = photographers.rows();
  rows.images = images.rows();
  rows.socialSites = socialSites.rows();
  rows.priorityTags = priorityTags.rows();
  rows.portfolios = portfolios.rows();
  rows.addOnTemplates = addOnTemplates.rows();
  return rows;
}
