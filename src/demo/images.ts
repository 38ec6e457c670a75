// Image records of packages and portfolios, in the sizes cameras and phones produce.

import type { V2Image } from '../v2/records.js';
import { CDN, IMAGE_SIZES } from './catalogue-offers.js';
import { decimal } from './format.js';
import { howMany, type Mode, maybe, type Rng } from './random.js';
import { IMAGE_TITLES } from './text.js';

/** 0..max images; a rich set holds at least two, the second with every nullable field empty. */
export function makeImages(rng: Rng, mode: Mode, emptyChance: number, max: number, richMin = 1): V2Image[] {
  const n = howMany(rng, mode, emptyChance, max, richMin);
  return rng.times(n, (i) => makeImage(rng, mode === 'rich' ? (i === 1 ? 'sparse' : 'rich') : 'random'));
}

function makeImage(rng: Rng, mode: Mode): V2Image {
  const identifier = rng.uuid();
  const [width, height] = rng.pick(IMAGE_SIZES);
  const url = (rendition: string) => `${CDN}/images/${identifier}/${rendition}`;
  const bytes = width * height * (0.25 + rng.int(0, 30) / 100); // JPEG at roughly 0.25-0.55 bytes per pixel
  return {
    identifier,
    image: url('original.jpg'),
    thumbnail: maybe(rng, mode, 0.05, () => url('thumb_480.jpg')),
    mobile_thumbnail: maybe(rng, mode, 0.1, () => url('mobile_1080.webp')),
    preload: maybe(rng, mode, 0.2, () => url('preload_32.jpg')),
    dimensions: { width, height },
    image_title: maybe(rng, mode, 0.5, () => rng.pick(IMAGE_TITLES)),
    filesize_mb: maybe(rng, mode, 0.1, () => decimal((bytes / 1_048_576) * 100, 2)),
  };
}

/** The first image of the wanted orientation; rich packages get a dedicated file when none matches. */
export function pickImage(
  rng: Rng,
  mode: Mode,
  images: readonly V2Image[],
  fits: (width: number, height: number) => boolean,
  packageId: string,
  kind: string,
): string | null {
  if (mode === 'sparse') return null;
  const match = images.find((img) => fits(img.dimensions.width, img.dimensions.height));
  if (mode === 'rich') return match?.image ?? `${CDN}/packages/${packageId}/${kind}.jpg`;
  return match && rng.chance(0.85) ? match.image : null;
}
