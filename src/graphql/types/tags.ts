import { builder } from '../builder.js';

export const PriorityTag = builder.prismaObject('PriorityTag', {
  description: 'A tag of a package, with the priority that orders it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Tag id (UUID).' }),
    tag: t.exposeString('tag', { description: 'Tag name.' }),
    priority: t.exposeInt('priority', { description: 'Priority of the tag.' }),
  }),
});

export const SimplePortfolio = builder.prismaObject('SimplePortfolio', {
  description: 'A short portfolio text for one category.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Portfolio entry id (UUID).' }),
    category: t.exposeInt('category', { description: 'Category code.' }),
    bio: t.exposeString('bio', { description: 'Biography text, HTML markup.' }),
  }),
});
