'use strict';
/**
 * The node page's banner about nodes sharing its first key byte, split by what the sharing makes
 * ambiguous. As a relay hop a 1-byte hash resolves among repeaters only (forwardersOf in
 * imports/core/hop-resolver.js), and only a repeater's figures count hop keys (address keys in
 * imports/core/analytics/observation-keys.js): so repeater sharers matter for a repeater's relay
 * counts, and not at all for other roles. As a src/dest hash (`@d2`) every sharer matters.
 * Names are cut at `limit` so the banner stays short on a 5,000-node mesh (~20 nodes a byte).
 */
// The one role that relays, from the module that resolves hops (a dependency-free file).
const { FORWARDING_ROLE } = require('../../core/hop-resolver');

/** Roles with how many sharers have each, most first (then by name): "14 companions, 3 rooms". */
function roleCounts(sharers) {
  const counts = new Map();
  for (const sharer of sharers) {
    const role = sharer.role || 'unknown';
    counts.set(role, (counts.get(role) || 0) + 1);
  }
  return Array.from(counts, ([role, count]) => ({ role, count }))
    .sort((a, b) => b.count - a.count || (a.role < b.role ? -1 : a.role > b.role ? 1 : 0));
}

/**
 * What the banner says for `node` ({ pubKey, role }) and `sharers` (the node view's
 * sharesPrefixWith: { pubKey, name, role }):
 *   prefix     the shared byte as hex
 *   relay      null unless the node is a repeater; then { shown, more, total }: the other
 *              repeaters sharing the byte (the first `limit` of them, and how many are left)
 *   address    { total, roles }: how many sharers, and how many of each role ("14 companions")
 */
function prefixSharerSummary(node, sharers, limit = 5) {
  const list = Array.isArray(sharers) ? sharers : [];
  const repeaters = list.filter((sharer) => sharer.role === FORWARDING_ROLE);
  const cut = (items) => ({ shown: items.slice(0, limit), more: Math.max(0, items.length - limit), total: items.length });
  return {
    prefix: String(node && node.pubKey ? node.pubKey : '').slice(0, 2).toLowerCase(),
    relay: node && node.role === FORWARDING_ROLE ? cut(repeaters) : null,
    address: { total: list.length, roles: roleCounts(list) },
  };
}

/** "14 companions, 3 rooms, 1 repeater". */
function roleCountText(roles) {
  return roles.map(({ role, count }) => (role === 'unknown' ? `${count} of unknown role` : `${count} ${role}${count === 1 ? '' : 's'}`)).join(', ');
}

module.exports = { prefixSharerSummary, roleCountText, FORWARDING_ROLE };
