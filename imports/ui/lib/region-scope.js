'use strict';
/**
 * The region scope: the header's region picker puts `region` into the params of every view
 * that accepts it. Which views accept it is read from the server's own contract
 * (`GET /api/spec`: one path per view with its query parameters), so the client follows the
 * server as views gain the parameter, and never sends one a view would refuse ("is not accepted").
 * Until the contract has loaded, the views known to take `region` stand in.
 */

// Views that took `region` before the contract said so for the others (imports/core/analytics).
const FALLBACK_REGION_VIEWS = Object.freeze(['observers', 'packets']);
const VIEW_PATH = /^\/api\/views\/([^/]+)$/;

/** Names of the views whose parameters include `region`, from an OpenAPI document; null if unreadable. */
function regionViewsFromSpec(document) {
  if (!document || typeof document !== 'object' || !document.paths || typeof document.paths !== 'object') return null;
  const names = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const match = VIEW_PATH.exec(path);
    const parameters = match && item && item.get && Array.isArray(item.get.parameters) ? item.get.parameters : null;
    if (parameters && parameters.some((parameter) => parameter && parameter.name === 'region' && parameter.in === 'query')) names.push(match[1]);
  }
  return names.sort();
}

/**
 * `params` scoped to `region` when the view accepts it and the caller has not chosen a region
 * itself (an explicit one wins); the same object otherwise, so memoized params stay equal.
 */
function scopeParams(viewName, params, region, regionViews) {
  if (!region || !regionViews || !regionViews.includes(viewName)) return params;
  if (params && params.region) return params;
  return { ...(params || {}), region };
}

/** Distinct regions of an observers list, sorted (the picker's choices). */
function regionsOf(observers) {
  return Array.from(new Set((observers || []).map((observer) => observer && observer.region).filter(Boolean))).sort();
}

/**
 * Whether the scope names a region no observer reports. A view scoped to it answers like an
 * empty mesh, so the page says the region is unknown instead. False while the observers list
 * loads (`known` null): a deep link is not called unknown before the regions are read.
 */
function isUnknownRegion(region, known) {
  return Boolean(region) && Array.isArray(known) && !known.includes(region);
}

// `region == X` and `region ~ X` in a filter expression (imports/core/packet-filter.js's values).
const FILTER_REGION = /\bregion\s*(==|~)\s*(?:"([^"]*)"|'([^']*)'|([^\s()&|!]+))/gi;

/**
 * Regions a filter expression tests for (== or ~) that match no known region, as the filter
 * compares (case-insensitive; ~ a substring); [] while the observers list loads.
 */
function unknownFilterRegions(filter, known) {
  if (!filter || !Array.isArray(known)) return [];
  const lowerKnown = known.map((name) => name.toLowerCase());
  const unknown = [];
  for (const match of filter.matchAll(FILTER_REGION)) {
    const value = (match[2] ?? match[3] ?? match[4]).toLowerCase();
    const found = match[1] === '==' ? lowerKnown.includes(value) : lowerKnown.some((name) => name.includes(value));
    if (!found && !unknown.includes(value)) unknown.push(value);
  }
  return unknown;
}

module.exports = { regionViewsFromSpec, scopeParams, regionsOf, isUnknownRegion, unknownFilterRegions, FALLBACK_REGION_VIEWS };
