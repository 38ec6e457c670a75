// A package's card, in the listing and among a photographer's other packages: its image (or the one placeholder
// every package without an image shares), title, price and photographer, linking to its page. The image's box is
// sized before it loads (width and height, and a 4:3 box in style.css), so nothing moves when it arrives.
import type { CardFragment } from '../generated/graphql.js';
import noImage from '../no-image.svg';
import { h, imageSrc } from './dom.js';
import { money } from './format.js';

/** Cards from the top of the listing, whose images are fetched at once: on any screen they are the first seen. */
const EAGER_CARDS = 4;

/** How wide a card is drawn: the screen less its margins on a phone, at most 20rem in the grid (style.css). */
const CARD_SIZES = '(max-width: 43.75rem) calc(100vw - 2rem), 20rem';

/**
 * The card's picture: the package's card image, its files offered by width (srcset), or the placeholder. Its text
 * alternative is the gateway's (the image's title where it says what it shows, else whose photo it is).
 */
function picture(item: CardFragment, eager: boolean): HTMLImageElement {
  const loading = eager ? 'eager' : 'lazy';
  const image = item.cardImage;
  if (!image) return h('img', { src: noImage, alt: '', width: 400, height: 300, loading, class: 'no-image' });
  const srcset = image.renditions.map((file) => `${imageSrc(file.url)} ${file.width}w`).join(', ');
  return h('img', {
    src: imageSrc(image.url),
    srcset: srcset || null,
    sizes: srcset ? CARD_SIZES : null,
    alt: image.alt,
    // Where the listing records no size, the card's own 4:3 box (style.css keeps it whatever the file's).
    width: image.width ?? 400,
    height: image.height ?? 300,
    loading,
  });
}

/** "$1,915", or "From $1,915" when the price is where it starts: in the package's currency. */
export function price(item: Pick<CardFragment, 'priceMoney' | 'startingAt'>): string {
  const amount = money(item.priceMoney.amount, item.priceMoney.currencyCode);
  return item.startingAt ? `From ${amount}` : amount;
}

/** A card; `position` among the cards drawn together (the first few load their image at once). */
export function card(item: CardFragment, position = EAGER_CARDS): HTMLLIElement {
  return h(
    'li',
    { class: 'card', 'data-id': item.id },
    h(
      'a',
      { href: `/packages/${encodeURIComponent(item.urlSlug)}`, 'data-route': true },
      picture(item, position < EAGER_CARDS),
      h('h3', {}, item.title),
    ),
    h('p', { class: 'price' }, price(item)),
    h('p', { class: 'by' }, `by ${item.photographer.name}`),
  );
}
