'use strict';
/** Plain-text versions of what cells draw, for their tooltips (a clipped cell shows it whole). */

/** What PacketSummary shows, as one line of text. */
function packetSummaryText(packet) {
  if (!packet) return '';
  if (packet.advert) return `advert ${packet.advert.name || (packet.advert.pubKey || '').slice(0, 8)} ${packet.advert.role || ''}`.trim();
  if (packet.message) return `${packet.message.channel || ''} ${packet.message.sender || '?'}: ${packet.message.text || ''}`.trim();
  if (packet.channelHash) return `channel ${packet.channelHash} (encrypted)`;
  if (packet.srcHash || packet.destHash) return `${packet.srcHash || '??'} → ${packet.destHash || '??'}`;
  return '';
}

/** A hop path as "1a › 20 › c4", or "direct". */
function hopPathText(hops) {
  return hops && hops.length ? hops.join(' › ') : 'direct';
}

const TRACE = 9; // its path bytes are per-hop SNRs, not hop hashes (imports/core/decode.js)

/**
 * The path a packet row shows: the longest any observer heard, or under a node search the
 * longest naming the node (`nodeMatch`, so the reason a row matched is on screen). The Hops
 * column counts the hops of this same path; the header's `hopCount` is the first copy's, often
 * shorter, and shown beside the longest path it made the two columns disagree.
 */
function shownPath(packet) {
  if (packet && packet.nodeMatch) return packet.nodeMatch.path;
  return (packet && packet.longestPath) || [];
}

/** Indexes of the shown path's hops that matched a node search (highlighted), or none. */
function markedHops(packet) {
  return packet && packet.nodeMatch ? packet.nodeMatch.hops : [];
}

/**
 * Which `max` hops of a path of `length` to draw: from the start, unless the first marked hop
 * would be cut off, then slid so it shows with one hop after it. { first, end } (end exclusive).
 */
function hopWindow(length, max, marked = []) {
  const mark = marked.length ? marked[0] : -1;
  const first = mark >= max - 1 ? Math.max(0, Math.min(mark - max + 2, length - max)) : 0;
  return { first, end: Math.min(length, first + max) };
}

/** The Hops column: hops of the path shown; a TRACE's SNRs recorded so far (it shows no hops). */
function shownHopCount(packet) {
  if (!packet) return null;
  return packet.payloadType === TRACE ? packet.hopCount : shownPath(packet).length;
}

/** The Path column as text (its tooltip), or a TRACE's note: it carries SNRs where paths carry hops. */
function shownPathText(packet) {
  if (packet && packet.payloadType === TRACE) return `trace: ${packet.hopCount} SNRs so far, no hop hashes`;
  const text = hopPathText(shownPath(packet));
  if (!packet || !packet.nodeMatch) return text;
  const hops = packet.nodeMatch.hops.map((i) => i + 1).join(', ');
  const longest = (packet.longestPath || []).length;
  const note = packet.nodeMatch.path.length < longest ? `; the longest heard had ${longest}` : '';
  return `${text} (the searched node at hop ${hops}${note})`;
}

module.exports = { packetSummaryText, hopPathText, shownPath, shownHopCount, shownPathText, markedHops, hopWindow, TRACE };
