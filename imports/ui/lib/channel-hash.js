'use strict';
/**
 * Channel hashes in URLs (`/channels/:hash`): a MeshCore group channel is named on air by one
 * byte, written as 2 hex digits. What the Channels page says when the URL names no channel it
 * can show, so an unknown or malformed hash reads as such instead of an empty panel.
 */

const CHANNEL_HASH_RE = /^[0-9a-f]{2}$/;

/** Whether `hash` (already lower-cased) is a channel hash: exactly 2 hex digits. */
function isChannelHash(hash) {
  return typeof hash === 'string' && CHANNEL_HASH_RE.test(hash);
}

/**
 * The notice for a chosen channel with nothing to show, or null when there is something to show
 * (or it is still loading): `known` is whether the channel list has it, `messageCount` the
 * stored messages answered for it (null while unanswered).
 */
function channelNotice({ hash, known, messageCount }) {
  if (!isChannelHash(hash)) return { error: true, text: `No channel “${hash}”: a channel hash is 2 hex digits (00 to ff).` };
  if (messageCount === 0 && !known) return { error: false, text: `No stored messages on channel ${hash}: nothing has been heard on it (or it was already evicted).` };
  if (messageCount === 0) return { error: false, text: 'No decrypted message on this channel.' };
  return null;
}

module.exports = { isChannelHash, channelNotice };
