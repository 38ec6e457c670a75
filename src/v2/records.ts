// The legacy v2 listing's record types, derived from the contract's schemas (src/v2/contract.ts): snake_case
// names, keys in the spec's table order, decimals as strings with the spec's exact scale, the JSON-text fields as
// strings holding JSON text. The demo generator produces these, the importer reads them, the v2 door renders them.
export type {
  JsonValue,
  V2AddOnTemplate,
  V2CalendarWorkDay,
  V2Image,
  V2LinkedAddOn,
  V2Location,
  V2Package,
  V2Page,
  V2Photographer,
  V2PriorityTag,
  V2Review,
  V2SimplePortfolio,
  V2Social,
  V2SocialSite,
} from './contract.js';
