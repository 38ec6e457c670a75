// Images and their renditions. The listing records the pixel size of an image's original only (spec 2.5:
// `dimensions`); its thumbnail and mobile thumbnail come with no size. So a rendition's width is known exactly
// for the original and only as a bound for the others: the original's width (a rendition is a scaled-down copy),
// lowered to the pixel count its file name states where it states one (`thumb_480.jpg`, `mobile_1080.webp`: the
// CDN names a rendition after the width, or the longer edge, it was made for; either way it is at most that
// wide). docs/graphql.md ("Card images") says the same to clients.
//
// Fields added here take arguments: "every field" of an image (the FullPackage fragment, the photographers'
// prepared text in src/db/write/read-model.ts) leaves such fields out, so it stays what it was.
import type { ImageRow } from '../../listing/rows.js';
import { builder } from '../builder.js';
import { badUserInput } from '../errors.js';
import { upTo } from '../limits.js';
import { Dimensions } from './value-types.js';

/** The widest an asked-for width may be (an 8K frame is 7,680 pixels wide). */
export const MAX_IMAGE_WIDTH = 10_000;
/** The longest fallback alt text a client may pass. */
const MAX_ALT_FALLBACK = 500;

/** A width argument, or a BAD_USER_INPUT saying the allowed range. */
export function requireImageWidth(value: number, argument: string): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_IMAGE_WIDTH) {
    throw badUserInput(`${argument} must be from 1 to ${MAX_IMAGE_WIDTH} pixels, got ${value}`);
  }
  return value;
}

const FILE_EXTENSION = /\.(jpe?g|png|webp|avif|gif|heic|heif|tiff?|bmp|dng|raw|cr[23]|nef|arw|raf|orf|rw2)$/i;
/** The names cameras and phones give their files: DSC_0457, IMG_4821, _MG_1234, PXL_20230101_123456, P1010001. */
const CAMERA_NAME = /^(?:_?dsc[fn]?|_?img|_mg|pxl|mvimg|gopr|gh\d\d|dji|p\d|sam|wp|pic|vid)[_-]?\d/i;

/** Whether a title is a file's name (a camera's, or any with an extension or a number for a name) and no words. */
export function isFileName(title: string): boolean {
  return FILE_EXTENSION.test(title) || CAMERA_NAME.test(title) || (!/\s/.test(title) && /\d{3}/.test(title));
}

/** The image's title where it says what the image shows; null where there is none or it is a file's name. */
export function describingTitle(title: string | null): string | null {
  const text = title?.replace(/\s+/g, ' ').trim();
  return text && !isFileName(text) ? text : null;
}

export type RenditionName = 'THUMBNAIL' | 'MOBILE_THUMBNAIL' | 'ORIGINAL';

export interface Rendition {
  name: RenditionName;
  url: string;
  /** Exact for the original; for the others, the most it can be (see the module's comment). */
  width: number;
  height: number;
  exact: boolean;
}

/** The width a rendition's file name states (`thumb_480.jpg`: 480); null where it states none. */
function statedWidth(url: string): number | null {
  const name = url.split(/[?#]/)[0]?.split('/').pop() ?? '';
  const match = /^([a-z]+)[_-](\d{1,5})(?:px|w)?\.[a-z0-9]{2,5}$/i.exec(name);
  if (!match || CAMERA_NAME.test(name)) return null;
  const width = Number(match[2]);
  return width > 0 ? width : null;
}

/**
 * The files that show the image, narrowest first (the original last among equals). The preload placeholder is
 * not one of them: it stays on `Image.preload`.
 */
export function renditionsOf(image: ImageRow): Rendition[] {
  const original: Rendition = {
    name: 'ORIGINAL',
    url: image.image,
    width: image.width,
    height: image.height,
    exact: true,
  };
  const scaled = (name: RenditionName, url: string | null): Rendition[] => {
    if (!url || url === image.image) return [];
    const width = Math.min(statedWidth(url) ?? image.width, image.width);
    const height = Math.max(1, Math.round((width * image.height) / image.width));
    return [{ name, url, width, height, exact: false }];
  };
  const all = [...scaled('THUMBNAIL', image.thumbnail), ...scaled('MOBILE_THUMBNAIL', image.mobileThumbnail), original];
  // Stable: among renditions as wide, the listed order (thumbnail, mobile thumbnail, original) stays.
  return all.sort((a, b) => a.width - b.width);
}

/** The widest rendition at most `maxWidth` wide; the narrowest where none is that narrow. */
export function renditionFor(renditions: readonly Rendition[], maxWidth: number): Rendition {
  // Narrowest first: the last that fits is the widest (the original among equals, the one known to be so wide).
  return renditions.filter((r) => r.width <= maxWidth).at(-1) ?? (renditions[0] as Rendition);
}

/** The renditions up to `maxWidth` wide (every one without it); the narrowest where none is that narrow. */
export function renditionsUpTo(renditions: readonly Rendition[], maxWidth: number | null | undefined): Rendition[] {
  if (maxWidth == null) return [...renditions];
  const fitting = renditions.filter((r) => r.width <= maxWidth);
  return fitting.length > 0 ? fitting : renditions.slice(0, 1);
}

const ImageRenditionName = builder.enumType('ImageRenditionName', {
  description: 'Which file of an image a rendition is.',
  values: {
    THUMBNAIL: { description: 'The thumbnail (`Image.thumbnail`).' },
    MOBILE_THUMBNAIL: { description: 'The mobile thumbnail (`Image.mobileThumbnail`).' },
    ORIGINAL: { description: 'The full-size original (`Image.image`).' },
  } as const,
});

export const ImageRendition = builder.objectRef<Rendition>('ImageRendition').implement({
  description:
    "One file of an image. The listing records the original's pixel size only: a smaller rendition's width is a bound (see `exact`).",
  fields: (t) => ({
    name: t.field({ type: ImageRenditionName, description: 'Which file it is.', resolve: (r) => r.name }),
    url: t.exposeString('url', { description: 'Absolute URL of the file.' }),
    width: t.exposeInt('width', {
      description:
        "Pixels wide, at most: exact for the original (the image's dimensions); for a smaller rendition the pixel count its file name ends with (thumb_480.jpg: 480), never above the original's width, or the original's width where the name states none. The `w` descriptor of a srcset.",
    }),
    height: t.exposeInt('height', {
      description: "`width` at the original's aspect ratio (renditions are scaled copies of the original).",
    }),
    exact: t.exposeBoolean('exact', {
      description: "Whether width and height are the file's own size (the original's); false: width is a bound.",
    }),
  }),
});

export const Image = builder.prismaObject('Image', {
  description: 'An image file with its renditions. Used for package images and photographer cover images.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Image id (UUID).' }),
    image: t.exposeString('image', { description: 'Absolute URL of the full-size image file.' }),
    thumbnail: t.exposeString('thumbnail', { nullable: true, description: 'Absolute URL of the thumbnail rendition.' }),
    mobileThumbnail: t.exposeString('mobileThumbnail', {
      nullable: true,
      description: 'Absolute URL of the mobile thumbnail rendition.',
    }),
    preload: t.exposeString('preload', {
      nullable: true,
      description: 'Absolute URL of a tiny preload (placeholder) rendition.',
    }),
    dimensions: t.field({ type: Dimensions, description: 'Pixel size of the full image.', resolve: (i) => i }),
    imageTitle: t.exposeString('imageTitle', { nullable: true, description: 'Title of the image.' }),
    filesizeMb: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'File size in megabytes, 2 decimals.',
      resolve: (i) => i.filesizeMb,
    }),
    alt: t.string({
      nullable: true,
      description: `Text for the image's alt attribute: its title where the title says what it shows; else \`fallback\` (at most ${MAX_ALT_FALLBACK} characters), null without one. A title that is a file name (DSC_0457, IMG_1234.jpg) is never used.`,
      args: {
        fallback: t.arg.string({ required: false, description: 'The text to use where the title says nothing.' }),
      },
      resolve: (i, args) => {
        if (args.fallback != null && args.fallback.length > MAX_ALT_FALLBACK) {
          throw badUserInput(
            `fallback may be at most ${MAX_ALT_FALLBACK} characters long, got ${args.fallback.length}`,
          );
        }
        return describingTitle(i.imageTitle) ?? args.fallback ?? null;
      },
    }),
    renditions: t.field({
      type: [ImageRendition],
      complexity: upTo(3),
      description: `The files that show the image, narrowest first (thumbnail, mobile thumbnail, original: those it has; the preload placeholder is left out). With maxWidth (1 to ${MAX_IMAGE_WIDTH}), those at most that wide, or the narrowest where none is: a srcset without the full-size original.`,
      args: { maxWidth: t.arg.int({ required: false, description: 'The widest rendition wanted, in pixels.' }) },
      resolve: (i, args) =>
        renditionsUpTo(renditionsOf(i), args.maxWidth == null ? null : requireImageWidth(args.maxWidth, 'maxWidth')),
    }),
    url: t.string({
      description: `URL of the widest rendition at most maxWidth (1 to ${MAX_IMAGE_WIDTH}) pixels wide; of the narrowest where none is that narrow.`,
      args: { maxWidth: t.arg.int({ required: true, description: 'The widest file wanted, in pixels.' }) },
      resolve: (i, args) => renditionFor(renditionsOf(i), requireImageWidth(args.maxWidth, 'maxWidth')).url,
    }),
  }),
});
