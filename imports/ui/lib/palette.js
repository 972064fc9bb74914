'use strict';
/**
 * The Ctrl+K search palette's plain logic: what a query asks the server for, and the result
 * list (pages, nodes, packets, channels) it shows, in one keyboard-navigable order.
 *   nodes     the `nodes` view's `search` (name substring or key prefix)
 *   packets   a full 16-hex hash (that packet) or a hex prefix of 4+ digits (the `packets`
 *             view's `text`, which matches hash prefixes)
 *   channels  the `channels` list, matched here by name or channel hash
 */

const { PALETTE_PAGES } = require('./pages');
const { formatNumber } = require('./format');

const HASH_RE = /^[0-9a-f]{16}$/;
const HEX_PREFIX_RE = /^[0-9a-f]{4,15}$/;
const PER_GROUP = 6;

// The pages come from the one list the navigation and the Analytics tabs also read.
const PAGES = PALETTE_PAGES;

/** The view params a query needs: { nodes, packets } (null = do not ask). */
function paletteRequests(text) {
  const query = String(text || '').trim().toLowerCase().slice(0, 64);
  if (!query) return { query, nodes: null, packets: null };
  let packets = null;
  if (HASH_RE.test(query)) packets = { hash: query };
  else if (HEX_PREFIX_RE.test(query)) packets = { text: query, limit: PER_GROUP };
  return { query, nodes: { search: query, sort: 'lastSeen', limit: PER_GROUP }, packets };
}

/** The results to show for `query`, best first within each group: [{ kind, key, label, sub, to }]. */
function paletteResults(query, { nodes = [], packets = [], channels = [] } = {}) {
  const q = String(query || '').trim().toLowerCase();
  const results = [];
  const pages = q ? PAGES.filter((page) => page.label.toLowerCase().includes(q)) : PAGES.slice(0, PER_GROUP);
  for (const page of pages.slice(0, PER_GROUP)) results.push({ kind: 'page', key: `page:${page.to}`, label: page.label, sub: page.to, to: page.to });
  if (!q) return results;
  for (const node of nodes.slice(0, PER_GROUP)) {
    results.push({ kind: 'node', key: `node:${node.pubKey}`, label: node.name || node.pubKey.slice(0, 12), sub: `${node.role || 'node'} · ${node.pubKey.slice(0, 12)}`, to: `/nodes/${node.pubKey}` });
  }
  if (HASH_RE.test(q) || HEX_PREFIX_RE.test(q)) {
    for (const packet of packets.filter((p) => p.hash.startsWith(q)).slice(0, PER_GROUP)) {
      results.push({ kind: 'packet', key: `packet:${packet.hash}`, label: packet.hash, sub: packet.advert && packet.advert.name ? `advert ${packet.advert.name}` : 'packet', to: `/packets/${packet.hash}` });
    }
  }
  const bare = q.replace(/^#/, '');
  const matchingChannels = channels.filter((channel) => (channel.name && channel.name.toLowerCase().includes(bare)) || String(channel.hash).toLowerCase().startsWith(bare));
  for (const channel of matchingChannels.slice(0, PER_GROUP)) {
    results.push({ kind: 'channel', key: `channel:${channel.hash}`, label: channel.name || `#${channel.hash}`, sub: `${formatNumber(channel.messages)} messages`, to: `/channels/${channel.hash}` });
  }
  return results;
}

/** The selection after a key: ArrowDown/ArrowUp wrap around; anything else keeps it in range. */
function moveSelection(index, key, count) {
  if (count <= 0) return 0;
  if (key === 'ArrowDown') return (index + 1) % count;
  if (key === 'ArrowUp') return (index - 1 + count) % count;
  return Math.min(Math.max(index, 0), count - 1);
}

/** Ctrl+K or Cmd+K (no other modifier). */
function isPaletteShortcut(event) {
  return Boolean(event && String(event.key).toLowerCase() === 'k' && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey);
}

module.exports = { paletteRequests, paletteResults, moveSelection, isPaletteShortcut, PALETTE_PAGES: PAGES };
