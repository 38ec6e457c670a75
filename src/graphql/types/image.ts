import { builder } from '../builder.js';
import { Dimensions } from './value-types.js';

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
  }),
});
