// What demo photographers offer: categories, title words, fonts, plans, social sites, tags, add-ons, weekdays
// and image sizes.

export interface Category {
  code: number;
  name: string;
  sessions: readonly string[];
  noun: string; // for sentences: "your {noun}"
  price: readonly [number, number]; // in USD
  hours: readonly [number, number]; // coverage, in quarter hours
  photos: readonly [number, number];
}

export const CATEGORIES: readonly Category[] = [
  {
    code: 1,
    name: 'Weddings',
    sessions: ['Wedding Collection', 'Full-Day Wedding Coverage', 'Intimate Wedding Package', 'Wedding Story'],
    noun: 'wedding day',
    price: [1800, 7500],
    hours: [16, 48],
    photos: [300, 900],
  },
  {
    code: 2,
    name: 'Engagements',
    sessions: ['Engagement Session', 'Couples Session', 'Proposal Coverage'],
    noun: 'engagement session',
    price: [250, 900],
    hours: [4, 8],
    photos: [40, 150],
  },
  {
    code: 3,
    name: 'Portraits',
    sessions: ['Portrait Session', 'Personal Branding Session', 'Senior Portraits'],
    noun: 'portrait session',
    price: [150, 700],
    hours: [2, 8],
    photos: [15, 80],
  },
  {
    code: 4,
    name: 'Family',
    sessions: ['Family Session', 'Extended Family Portraits', 'Lifestyle Family Session'],
    noun: 'family session',
    price: [200, 850],
    hours: [2, 8],
    photos: [30, 120],
  },
  {
    code: 5,
    name: 'Newborn',
    sessions: ['Newborn Session', 'Fresh 48 Session', 'In-Home Newborn Session'],
    noun: 'newborn session',
    price: [300, 1100],
    hours: [6, 16],
    photos: [20, 60],
  },
  {
    code: 6,
    name: 'Maternity',
    sessions: ['Maternity Session', 'Bump & Bloom Portraits'],
    noun: 'maternity session',
    price: [200, 750],
    hours: [3, 8],
    photos: [20, 70],
  },
  {
    code: 7,
    name: 'Events',
    sessions: ['Event Coverage', 'Corporate Event Package', 'Birthday Party Coverage', 'Gala & Awards Night'],
    noun: 'event',
    price: [400, 3500],
    hours: [8, 32],
    photos: [100, 600],
  },
  {
    code: 8,
    name: 'Headshots',
    sessions: ['Professional Headshots', 'Team Headshot Day', 'Actor Headshots'],
    noun: 'headshot session',
    price: [120, 600],
    hours: [1, 6],
    photos: [5, 40],
  },
  {
    code: 9,
    name: 'Elopements',
    sessions: ['Elopement Package', 'Adventure Elopement', 'Courthouse Wedding'],
    noun: 'elopement',
    price: [900, 4500],
    hours: [6, 32],
    photos: [150, 500],
  },
  {
    code: 10,
    name: 'Real Estate',
    sessions: ['Listing Photos', 'Twilight Real Estate Shoot', 'Airbnb Photo Package'],
    noun: 'property shoot',
    price: [150, 900],
    hours: [4, 12],
    photos: [20, 60],
  },
  {
    code: 11,
    name: 'Product',
    sessions: ['Product Photography', 'E-commerce Flat Lays', 'Lifestyle Product Shoot'],
    noun: 'product shoot',
    price: [250, 2400],
    hours: [4, 24],
    photos: [10, 80],
  },
  {
    code: 12,
    name: 'Pets',
    sessions: ['Pet Portraits', 'Dog Adventure Session', 'Furry Family Session'],
    noun: 'pet session',
    price: [150, 600],
    hours: [2, 6],
    photos: [15, 60],
  },
];

export const TITLE_MODIFIERS = [
  'Golden Hour',
  'Sunset',
  'Classic',
  'Signature',
  'Essential',
  'Deluxe',
  'Mini',
  'Luxe',
  'Downtown',
  'Beach',
  'Garden',
  'Winter Wonderland',
  'Cherry Blossom',
  'Documentary',
  'Timeless',
  'Boho',
  'Urban',
  'Sunrise',
  'Storybook',
  'Editorial',
] as const;

export const COMPANY_EMOJI = [' 📸', ' ✨', ' 🌿', ' 💍', ' 📷'] as const;

export const FONTS = [
  'Playfair Display',
  'Montserrat',
  'Lora',
  'Cormorant Garamond',
  'Raleway',
  'Josefin Sans',
  'Libre Baskerville',
  'Poppins',
] as const;

export const PLAN_NAMES = ['Basic', 'Pro', 'Studio', 'Marketplace Plus', 'Pro (Annual)'] as const;

export const SOCIAL_SITES = [
  { name: 'Instagram', icon: 'fab fa-instagram', url: (h: string) => `https://www.instagram.com/${h}/` },
  { name: 'Facebook', icon: 'fab fa-facebook-f', url: (h: string) => `https://www.facebook.com/${h}` },
  { name: 'Pinterest', icon: 'fab fa-pinterest-p', url: (h: string) => `https://www.pinterest.com/${h}/` },
  { name: 'TikTok', icon: 'fab fa-tiktok', url: (h: string) => `https://www.tiktok.com/@${h}` },
  { name: 'YouTube', icon: 'fab fa-youtube', url: (h: string) => `https://www.youtube.com/@${h}` },
] as const;

/** Platform-wide tags; names never hold a comma (tag_keywords joins them with commas). */
export const TAG_NAMES = [
  'Golden Hour',
  'Outdoor',
  'Studio',
  'Drone',
  'Same-Day Edits',
  'Black & White',
  'Film',
  'LGBTQ+ Friendly',
  'Pet Friendly',
  'Travel Included',
  'Bilingual',
  'Candid',
  'Luxury',
  'Budget Friendly',
  'Mini Session',
  'Holiday',
  'Beach',
  'Mountains',
  'Urban',
  'Fine Art',
  'Second Shooter',
  'Album Included',
  'Rush Delivery',
  'Sunrise',
] as const;

export const ADD_ONS = [
  ['Extra Hour of Coverage', 250, 1],
  ['Second Photographer', 450, 1],
  ['Rush Delivery (48 hours)', 150, 1],
  ['Fine Art Album 10×10"', 600, 1],
  ['Drone Coverage', 300, 1],
  ['Hair & Makeup Artist', 220, 1],
  ['Additional Location', 120, 1],
  ['Printed USB Box', 95, 1],
  ['Engagement Mini Session', 350, 1],
  ['Canvas Print 16×20"', 180, 1],
  ['Parent Albums (pair)', 400, 2],
  ['Extra Edited Images (set of 10)', 75, 10],
] as const;

export const WEEKDAYS = [
  ['Sunday', 'S'],
  ['Monday', 'M'],
  ['Tuesday', 'T'],
  ['Wednesday', 'W'],
  ['Thursday', 'T'],
  ['Friday', 'F'],
  ['Saturday', 'S'],
] as const;

export type Weekday = (typeof WEEKDAYS)[number];

// Image sizes in pixels, as cameras and phones produce them.
export const IMAGE_SIZES = [
  [6000, 4000],
  [4000, 6000],
  [5472, 3648],
  [3648, 5472],
  [8256, 5504],
  [4032, 3024],
  [3024, 4032],
  [2048, 1365],
  [1365, 2048],
  [3840, 2160],
  [2400, 2400],
] as const;

export const CDN = 'https://cdn.snapbook-media.net';
export const SITE_HOST = 'snapbook.site';
