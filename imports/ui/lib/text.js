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

module.exports = { packetSummaryText, hopPathText };
