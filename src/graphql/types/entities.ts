// Apollo Federation 2: Package and Photographer are entities keyed by id, so a router can ask this subgraph for
// them by reference (`_entities`). A reference is resolved through the same per-request loaders and read session
// as a page: the references of one request are read in one statement per type, their nested lists batched as a
// page's are. A reference to a package that is not listed, or to a photographer without a listed package (or an
// id that is not a UUID), resolves to null, as the package and photographer queries answer.
import { builder } from '../builder.js';
import { uuidOrNull } from '../errors.js';
import { selectedPackageFields } from '../projection.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';

builder.asEntity(Package, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref, ctx, info) => {
    const id = uuidOrNull(ref.id);
    return id === null ? null : ctx.loaders.listedPackage(selectedPackageFields(info, [], 'Package')).load(id);
  },
});

builder.asEntity(Photographer, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref, ctx) => {
    const id = uuidOrNull(ref.id);
    return id === null ? null : ctx.loaders.listedPhotographer.load(id);
  },
});
