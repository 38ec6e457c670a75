// The package page, by its URL slug: images, price and deposit, what is included, policies, tags, add-ons, the
// photographer's profile and their other packages; a "not found" page when no listed package has the slug.
import { StorefrontPackageDocument, type StorefrontPackageQuery } from '../generated/graphql.js';
import { query } from './api.js';
import { card, price } from './card.js';
import { h, imageSrc, safeHtml } from './dom.js';
import { count, counted, hours, money, percent, photos } from './format.js';

type Package = NonNullable<StorefrontPackageQuery['package']>;

const view = document.getElementById('package') as HTMLElement;
let shownSlug: string | undefined;
/** As in the listing: an answer for a page the shopper has left since is dropped. */
let generation = 0;

const section = (title: string, ...content: (Node | string | null)[]) =>
  h('section', { class: 'part' }, h('h2', {}, title), ...content);

/** A definition list of the entries whose value is there. */
function facts(entries: [string, string | null | undefined][]): HTMLDListElement | null {
  const present = entries.filter((entry): entry is [string, string] => Boolean(entry[1]));
  if (present.length === 0) return null;
  return h(
    'dl',
    { class: 'facts' },
    present.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

function gallery(item: Package): HTMLElement | null {
  if (item.images.length === 0) return null;
  // A strip that scrolls sideways: focusable, so the keyboard can scroll it too.
  return h(
    'div',
    { class: 'gallery', role: 'region', 'aria-label': 'Images', tabindex: 0 },
    h(
      'ul',
      {},
      item.images.map((image, i) =>
        h(
          'li',
          {},
          h('img', {
            src: imageSrc(i === 0 ? image.image : (image.thumbnail ?? image.image)),
            alt: image.alt ?? `${item.title}, image ${i + 1}`,
            width: image.dimensions.width,
            height: image.dimensions.height,
            loading: i === 0 ? 'eager' : 'lazy',
          }),
        ),
      ),
    ),
  );
}

/** The deposit in words: "None", "$250", "$750 (50% of the price)". */
function deposit(item: Package): string {
  const { amount: due, currencyCode } = item.depositMoney;
  if (Number(due) === 0) return 'None';
  const amount = money(due, currencyCode);
  return item.depositFraction ? `${amount} (${percent(item.depositFraction)} of the price)` : amount;
}

function pricing(item: Package): HTMLElement {
  return h(
    'section',
    { class: 'part pricing', 'aria-label': 'Price' },
    h('p', { class: 'price big' }, price(item)),
    facts([
      ['Deposit', deposit(item)],
      // The share of the price paid at booking (the listing sets it or depositFraction, never both).
      ['Payment schedule', item.paymentSchedule && `${percent(item.paymentSchedule)} deposit`],
      ['Coverage', item.hoursOfCoverage && hours(item.hoursOfCoverage)],
      ['Photos', photos(item.numberOfPhotosMin, item.numberOfPhotosMax)],
      ['Delivered within', item.daysToDelivery === null ? null : counted(item.daysToDelivery, 'day')],
      ['Instant booking', item.instantBooking ? 'Yes' : 'No'],
    ]),
  );
}

/** A rating ("4.0", a Decimal) as people write one: "4.0", "4.5". */
const rating = (value: string) => Number(value).toFixed(1);

function photographer(item: Package): HTMLElement {
  const who = item.photographer;
  return section(
    'The photographer',
    who.displayImage
      ? h('img', { class: 'avatar', src: imageSrc(who.displayImage), alt: '', width: 96, height: 96 })
      : null,
    h('p', { class: 'who' }, h('strong', {}, who.name), who.companyName ? `, ${who.companyName}` : ''),
    h('p', {}, who.location.name),
    who.review
      ? h('p', {}, `Rated ${rating(who.review.rating)} out of 5 in ${counted(who.review.number, 'review')}`)
      : null,
    who.socials.length > 0
      ? h(
          'ul',
          { class: 'inline' },
          who.socials.map((social) =>
            h('li', {}, h('a', { href: social.url, rel: 'nofollow noopener' }, social.socialSite.name)),
          ),
        )
      : null,
  );
}

function draw(item: Package): void {
  const others = item.photographer.packages.edges.map((edge) => edge.node).filter((node) => node.id !== item.id);
  const policies = facts([
    ['Cancellation', item.cancellationPolicy],
    ['Weather', item.weatherPolicy],
    ['Extensions', item.extensionPolicy],
    ['Licence', item.licensePolicy],
    ['Add-ons', item.addOnsPolicy],
    ['Payment schedule', item.paymentSchedulePolicy],
  ]);
  document.title = `${item.title}: Photography packages`;
  const parts = [
    h('p', {}, h('a', { href: '/', 'data-route': true, class: 'back' }, 'All packages')),
    h('h1', {}, item.title),
    h('p', { class: 'meta' }, `${item.categoryName} · ${item.location.name}`),
    gallery(item),
    pricing(item),
    section('Description', h('div', { class: 'prose' }, safeHtml(item.description))),
    item.whatsIncluded ? section("What's included", h('div', { class: 'prose' }, safeHtml(item.whatsIncluded))) : null,
    item.whatToExpect ? section('What to expect', h('div', { class: 'prose' }, safeHtml(item.whatToExpect))) : null,
    policies ? section('Policies', policies) : null,
    item.priorityTags.length > 0
      ? section(
          'Tags',
          h(
            'ul',
            { class: 'tags' },
            item.priorityTags.map((tag) => h('li', {}, tag.tag)),
          ),
        )
      : null,
    item.linkedAddOns.length > 0
      ? section(
          'Add-ons',
          h(
            'ul',
            { class: 'add-ons' },
            item.linkedAddOns.map(({ packageAddOnTemplate: addOn }) =>
              h(
                'li',
                {},
                `${addOn.name}${addOn.quantity > 1 ? ` × ${count(addOn.quantity)}` : ''}: ${money(addOn.priceMoney.amount, addOn.priceMoney.currencyCode)}`,
              ),
            ),
          ),
        )
      : null,
    photographer(item),
    others.length > 0
      ? section(
          `Other packages by ${item.photographer.name}`,
          h('ul', { class: 'cards' }, others.slice(0, 6).map(card)),
        )
      : null,
  ];
  view.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null));
}

/** The "not found" page: for a slug no listed package has, or an address the storefront does not have. */
export function drawNotFound(heading: string, text: string): void {
  shownSlug = undefined;
  document.title = `${heading}: Photography packages`;
  view.replaceChildren(
    h('h1', {}, heading),
    h('p', {}, text),
    h('p', {}, h('a', { href: '/', 'data-route': true }, 'See all packages')),
  );
}

/** Shows the package of `slug`; `again`: fetch it even if it is on screen (the listing changed). */
export async function showPackage(slug: string, again = false): Promise<void> {
  if (slug === shownSlug && !again) return;
  const mine = ++generation;
  shownSlug = slug;
  const { package: found } = await query(StorefrontPackageDocument, { slug });
  if (mine !== generation) return;
  if (found) draw(found);
  else drawNotFound('Package not found', `No package is listed at “${slug}”: it may have left the listing.`);
}

/** The package on screen, fetched again (the listing changed); nothing when none is. */
export async function refreshPackage(): Promise<void> {
  if (shownSlug !== undefined && !view.hidden) await showPackage(shownSlug, true);
}
