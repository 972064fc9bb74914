'use strict';
/**
 * Favourite nodes, kept in this browser's localStorage as a JSON array of public keys (most
 * recently starred last). Parsing never throws: whatever another tab or an old version left
 * there is read as the valid keys it contains.
 */

const FAVOURITES_STORAGE_KEY = 'meshpulse.favouriteNodes';
const MAX_FAVOURITES = 200;
const KEY_RE = /^[0-9a-f]{2,64}$/;

/** The valid, distinct keys stored in `text`, at most MAX_FAVOURITES (the newest kept). */
function parseFavourites(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const keys = [];
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const key = item.toLowerCase();
    if (KEY_RE.test(key) && !keys.includes(key)) keys.push(key);
  }
  return keys.slice(-MAX_FAVOURITES);
}

/** `keys` with `key` added (at the end) or removed. */
function toggleFavourite(keys, key) {
  const normal = String(key).toLowerCase();
  if (!KEY_RE.test(normal)) return keys;
  if (keys.includes(normal)) return keys.filter((k) => k !== normal);
  return [...keys, normal].slice(-MAX_FAVOURITES);
}

/** Rows (with `pubKey`) that are favourites (a stored key may be a prefix), in the order of `rows`. */
function favouriteRows(rows, keys) {
  return (rows || []).filter((row) => row && typeof row.pubKey === 'string' && keys.some((key) => row.pubKey.startsWith(key)));
}

/**
 * The `nodes` view params that fetch exactly the favourites (its `keys` param, at most
 * MAX_FAVOURITES, as many as can be stored), sorted so the same set is one subscription
 * whatever order it was starred in; null for none.
 */
function favouritesParams(keys) {
  if (!keys || keys.length === 0) return null;
  return { keys: Array.from(new Set(keys)).sort().join(','), sort: 'lastSeen', limit: 500 };
}

/** { rows, missing }: the favourites' rows and the favourites no row carries (unknown here). */
function favouriteMatches(rows, keys) {
  const found = favouriteRows(rows, keys);
  const missing = keys.filter((key) => !found.some((row) => row.pubKey.startsWith(key)));
  return { rows: found, missing };
}

module.exports = { FAVOURITES_STORAGE_KEY, MAX_FAVOURITES, parseFavourites, toggleFavourite, favouriteRows, favouritesParams, favouriteMatches };
