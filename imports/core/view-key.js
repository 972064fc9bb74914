'use strict';
/**
 * The id of a view's document on the client: view name plus the params exactly as the
 * client passed them, in canonical key order. Client-safe (no Node modules), so the React
 * hooks and the server compute the same id.
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).filter((k) => value[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

function viewDocumentId(viewName, params) {
  return `${viewName}|${canonical(params || {})}`;
}

module.exports = { viewDocumentId, canonical };
