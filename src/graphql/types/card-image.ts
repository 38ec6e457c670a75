// The image of a package's card: one of the records it has, at a card's size, with its size and an alt text.
// `landscapeImage` was the field for cards: always the full-size original, null on a third of the packages, no
// size and no alt text. Chosen from the package's own image records first, then from its photographer's cover
// images, and only then from a bare `landscapeImage`/`portraitImage` URL (a file of unknown size, with no
// renditions), so every card has a known size wherever any record exists.
//
// No statement per card: the package's images come with its page (its prepared lists) or through the batched
// images loader, and the photographer (for its cover images, or its name for an alt text) through the batched
// photographer loader: at most one statement more for a whole page.
import type { ImageRow, PackageRow } from '../../listing/rows.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { upTo } from '../limits.js';
import { reads } from '../projection.js';
import {
  describingTitle,
  Image,
  ImageRendition,
  MAX_IMAGE_WIDTH,
  type Rendition,
  renditionFor,
  renditionsOf,
  requireImageWidth,
} from './image.js';
import { Package } from './package.js';

/** A card 320 CSS pixels wide on a screen of two device pixels per CSS pixel. */
const DEFAULT_CARD_WIDTH = 640;

type CardImageSource = 'LANDSCAPE_IMAGE' | 'PACKAGE_IMAGE' | 'PHOTOGRAPHER_COVER_IMAGE' | 'PORTRAIT_IMAGE';

interface CardImageValue {
  source: CardImageSource;
  /** The image record chosen; null for a bare URL. */
  record: ImageRow | null;
  /** The rendition at the card's width; null for a bare URL. */
  chosen: Rendition | null;
  url: string;
  packageTitle: string;
  photographerId: string;
}

const landscapeShaped = (image: ImageRow) => image.width >= image.height;

/** The record whose original is the landscape image, else the first landscape-shaped one, else the first. */
function pickRecord(
  images: readonly ImageRow[],
  landscapeImage: string | null,
  otherwise: CardImageSource,
): { source: CardImageSource; record: ImageRow } | null {
  const landscape = landscapeImage ? images.find((image) => image.image === landscapeImage) : undefined;
  if (landscape) return { source: 'LANDSCAPE_IMAGE', record: landscape };
  const record = images.find(landscapeShaped) ?? images[0];
  return record ? { source: otherwise, record } : null;
}

/** The alt text where the title says nothing: the package and who took the photo. */
function packageAlt(packageTitle: string, photographerName: string | null | undefined): string {
  const title = packageTitle.trim();
  const by = photographerName?.trim() ? `a photo by ${photographerName.trim()}` : 'a photo';
  return title ? `${title}: ${by}` : by.charAt(0).toUpperCase() + by.slice(1);
}

async function packageImages(p: PackageRow, ctx: Context): Promise<ImageRow[]> {
  return p.lists?.images ?? ctx.loaders.packageImages.load(p.id);
}

async function coverImages(photographerId: string, ctx: Context): Promise<ImageRow[]> {
  const photographer = await ctx.loaders.photographer.load(photographerId);
  return photographer?.coverImages.map((cover) => cover.image) ?? [];
}

const CardImageSourceEnum = builder.enumType('CardImageSource', {
  description: "Where a card's image comes from.",
  values: {
    LANDSCAPE_IMAGE: { description: "The package's landscape image (`Package.landscapeImage`)." },
    PACKAGE_IMAGE: { description: "One of the package's images (`Package.images`): the first landscape-shaped one." },
    PHOTOGRAPHER_COVER_IMAGE: {
      description: "One of the photographer's cover images, where the package has no image record of its own.",
    },
    PORTRAIT_IMAGE: { description: "The package's portrait image, where it has nothing else." },
  } as const,
});

const CardImage = builder.objectRef<CardImageValue>('CardImage').implement({
  description:
    "The image to show on a package's card: one of its image records at a card's size (`url`), with the size to lay it out at, an alt text and the renditions for a srcset.",
  fields: (t) => ({
    url: t.string({
      description:
        'Absolute URL of the file to show: the widest rendition at most `maxWidth` pixels wide, or the narrowest where none is that narrow.',
      resolve: (c) => c.url,
    }),
    width: t.int({
      nullable: true,
      description:
        "Pixels wide, at most (exact where `exact`): the chosen rendition's `width`. Null only for a bare URL, whose size the listing does not record.",
      resolve: (c) => c.chosen?.width ?? null,
    }),
    height: t.int({
      nullable: true,
      description: "`width` at the image's aspect ratio; null only for a bare URL.",
      resolve: (c) => c.chosen?.height ?? null,
    }),
    exact: t.boolean({
      description: "Whether width and height are the file's own size (the original's); false: width is a bound.",
      resolve: (c) => c.chosen?.exact ?? false,
    }),
    alt: t.string({
      description:
        'Text for the alt attribute: the image title where it says what the image shows, else the package title and the photographer ("Golden hour session: a photo by Ana Lima"). Never a file name such as DSC_0457.',
      resolve: async (c, _args, ctx) => {
        const title = describingTitle(c.record?.imageTitle ?? null);
        if (title) return title;
        const photographer = await ctx.loaders.photographer.load(c.photographerId);
        return packageAlt(c.packageTitle, photographer?.name);
      },
    }),
    preload: t.string({
      nullable: true,
      description: 'Absolute URL of a tiny placeholder to show while the file loads; null where the image has none.',
      resolve: (c) => c.record?.preload ?? null,
    }),
    renditions: t.field({
      type: [ImageRendition],
      complexity: upTo(3),
      description:
        'Every rendition of the image, narrowest first, for a srcset ("thumb_480.jpg 480w, mobile_1080.webp 1080w, ..."); empty for a bare URL.',
      resolve: (c) => (c.record ? renditionsOf(c.record) : []),
    }),
    source: t.field({
      type: CardImageSourceEnum,
      description: 'Where the image comes from.',
      resolve: (c) => c.source,
    }),
    image: t.field({
      type: Image,
      nullable: true,
      description: 'The image record shown; null for a bare URL.',
      resolve: (c) => c.record,
    }),
  }),
});

builder.objectField(Package, 'cardImage', (t) =>
  t.field({
    ...reads('id', 'lists', 'landscapeImage', 'portraitImage', 'title', 'photographerId'),
    type: CardImage,
    nullable: true,
    description: `The image for the package's card, at most maxWidth (1 to ${MAX_IMAGE_WIDTH}) pixels wide where the image has a rendition that narrow: the landscape image, else one of the package's images, else one of its photographer's cover images, else its portrait image. Null only when the package has no image at all.`,
    args: {
      maxWidth: t.arg.int({
        defaultValue: DEFAULT_CARD_WIDTH,
        description: "The widest file wanted, in pixels: the card's width times the screen's pixel ratio.",
      }),
    },
    resolve: async (p, args, ctx): Promise<CardImageValue | null> => {
      const maxWidth = requireImageWidth(args.maxWidth ?? DEFAULT_CARD_WIDTH, 'maxWidth');
      const row = p as PackageRow;
      const picked =
        pickRecord(await packageImages(row, ctx), row.landscapeImage, 'PACKAGE_IMAGE') ??
        pickRecord(await coverImages(row.photographerId, ctx), row.landscapeImage, 'PHOTOGRAPHER_COVER_IMAGE');
      const card = { packageTitle: row.title, photographerId: row.photographerId };
      if (picked) {
        const chosen = renditionFor(renditionsOf(picked.record), maxWidth);
        return { ...card, ...picked, chosen, url: chosen.url };
      }
      const bare = row.landscapeImage
        ? ({ source: 'LANDSCAPE_IMAGE', url: row.landscapeImage } as const)
        : row.portraitImage
          ? ({ source: 'PORTRAIT_IMAGE', url: row.portraitImage } as const)
          : null;
      return bare && { ...card, ...bare, record: null, chosen: null };
    },
  }),
);
