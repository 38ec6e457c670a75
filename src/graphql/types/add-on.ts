import { builder } from '../builder.js';

export const AddOnTemplate = builder.prismaObject('AddOnTemplate', {
  description: 'An add-on a photographer offers (an extra hour, prints, ...). Shared by every package that links it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Add-on template id (UUID).' }),
    name: t.exposeString('name', { description: 'Name of the add-on.' }),
    price: t.field({ type: 'Decimal', description: 'Price, 2 decimals.', resolve: (a) => a.price }),
    quantity: t.exposeInt('quantity', { description: 'Quantity included.' }),
  }),
});

export const LinkedAddOn = builder.prismaObject('LinkedAddOn', {
  description: 'The link between a package and an add-on template it offers.',
  include: { template: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Link id (UUID).' }),
    packageAddOnTemplate: t.field({
      type: AddOnTemplate,
      description: 'The linked add-on template.',
      resolve: (l) => l.template,
    }),
  }),
});
