// The schema: imports every type file, then builds.
import { builder } from './builder.js';
import './types/query.js';

export const schema = builder.toSchema({ sortSchema: false });
