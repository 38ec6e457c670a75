// The one path of the legacy v2 service, with its trailing slash, as its clients and its pages' links know it.
export const LISTING_PATH = '/v2/local-package-list/';
