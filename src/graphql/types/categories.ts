// `categories`: what a storefront's category list shows, each with the number of listed packages in it (kept per
// listing version: src/listing/categories.ts). Pass a code to `packages(filter: { categories: [code] })`.
import type { Category as CategoryValue } from '../../listing/categories.js';
import { builder } from '../builder.js';

const Category = builder.objectRef<CategoryValue>('Category').implement({
  description: 'A category of packages, with how many listed packages it has.',
  fields: (t) => ({
    code: t.exposeInt('code', { description: 'Category code, as `Package.category` and the category filter take it.' }),
    name: t.exposeString('name', { description: 'Category label, as `Package.categoryName` gives it.' }),
    packageCount: t.exposeInt('packageCount', { description: 'Listed packages in the category.' }),
  }),
});

builder.queryField('categories', (t) =>
  t.field({
    type: [Category],
    description: 'The categories that have listed packages, by code, each with its count.',
    resolve: async (_root, _args, ctx) => ctx.store.categories(await ctx.store.listing()),
  }),
);
