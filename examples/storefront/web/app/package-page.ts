// The package page, by its URL slug: images, price and deposit, what is included, policies, tags, add-ons, the
// photographer's profile and their other packages; a "not found" page when no listed package has the slug.
import { StorefrontPackageDocument, type StorefrontPackageQuery } from '../generated/graphql.js';
import { query } from './api.js';
import { h, imageSrc, money, safeHtml } from './dom.js';
import { card } from './listing.js';

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
            alt: image.imageTitle ?? `${item.title}, image ${i + 1}`,
            width: image.dimensions.width,
            height: image.dimensions.height,
            loading: i === 0 ? 'eager' : 'lazy',
          }),
        ),
      ),
    ),
  );
}

function pricing(item: Package): HTMLElement {
  const symbol = item.photographer.currencySymbol;
  const fraction = item.depositFraction ? `${(Number(item.depositFraction) * 100).toFixed(0)}% of the price` : null;
  const photos =
    item.numberOfPhotosMin !== null && item.numberOfPhotosMax !== null
      ? `${item.numberOfPhotosMin} to ${item.numberOfPhotosMax}`
      : null;
  return h(
    'section',
    { class: 'part pricing', 'aria-label': 'Price' },
    h('p', { class: 'price big' }, money(item.price, symbol)),
    facts([
      ['Deposit', `${money(item.deposit, symbol)}${fraction ? ` (${fraction})` : ''}`],
      ['Payment schedule', item.paymentSchedule],
      ['Hours of coverage', item.hoursOfCoverage],
      ['Photos', photos],
      ['Delivered within', item.daysToDelivery === null ? null : `${item.daysToDelivery} days`],
      ['Instant booking', item.instantBooking ? 'Yes' : 'No'],
    ]),
  );
}

function photographer(item: Package): HTMLElement {
  const who = item.photographer;
  return section(
    'The photographer',
    who.displayImage
      ? h('img', { class: 'avatar', src: imageSrc(who.displayImage), alt: '', width: 96, height: 96 })
      : null,
    h('p', { class: 'who' }, h('strong', {}, who.name), who.companyName ? `, ${who.companyName}` : ''),
    h('p', {}, who.location.name),
    who.review ? h('p', {}, `Rated ${who.review.rating} of 5 by ${who.review.number} clients`) : null,
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
  const symbol = item.photographer.currencySymbol;
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
                `${addOn.name}${addOn.quantity > 1 ? ` × ${addOn.quantity}` : ''}: ${money(addOn.price, symbol)}`,
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
