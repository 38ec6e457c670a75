import { builder } from '../builder.js';
import { Money, moneyOf, useMoney } from './money.js';

export const AddOnTemplate = builder.prismaObject('AddOnTemplate', {
  description: 'An add-on a photographer offers (an extra hour, prints, ...). Shared by every package that links it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Add-on template id (UUID).' }),
    name: t.exposeString('name', { description: 'Name of the add-on.' }),
    price: t.field({
      type: 'Decimal',
      description: 'Price, 2 decimals, in the currency of priceMoney.',
      deprecationReason: useMoney('priceMoney'),
      resolve: (a) => a.price,
    }),
    priceMoney: t.field({
      type: Money,
      description:
        "The price with its currency: that of the package it is offered with (a template is its photographer's own).",
      resolve: (a) => moneyOf(a.price, a),
    }),
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
