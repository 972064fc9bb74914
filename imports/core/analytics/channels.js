'use strict';
/**
 * channels: one row per channel hash heard (GRP_TXT and GRP_DATA share the store's byChannel
 * index): its name when the keyring knows a key for the hash, whether anything on it could be
 * decrypted, message counts, the newest message, recent activity and distinct senders.
 *
 * Definitions:
 *   messages          transmissions still stored on the hash (a retry with new ciphertext counts again).
 *   decrypted         of those, the ones a known key decrypted; `encrypted` = none did.
 *   lastMessage       the newest transmission: { time, sender, text } (sender/text null when not decrypted).
 *   lastSender        the sender of the newest decrypted message (null when none).
 *   messagesLastHour  transmissions first heard at or after now - 1 h (rolling; same for LastDay, 24 h).
 *   hourly            24 counts, oldest first, for the clock hours starting at `hourlyFrom`
 *                     (the hour holding `now` is the last one).
 *   senders           distinct non-null senders among decrypted messages.
 *
 * State is O(1) per transmission to keep: per-hash counters, hour buckets and a sender Map.
 * Only the first observation of a transmission counts; later ones change nothing here.
 */
const { BYTES } = require('../memory-account');
const { defineView, memoryPart, bump, hourBucket, HOUR_MS, DAY_MS } = require('./view');
const { isFirstObservation } = require('../stored-records');

const HOURLY_BUCKETS = 24;

/** The keyring's names for a channel hash ('A / B' when several keys share the hash), or null. */
function channelName(store, hash) {
  const keys = store.keyring ? store.keyring.get(hash) : [];
  if (keys.length === 0) return null;
  if (keys.length === 1) return keys[0].name;
  return keys.map((key) => key.name).join(' / ');
}

// A channel entry: object, two Maps, its Map entry and 1-byte hash key.
const CHANNEL_BYTES = BYTES.object + 5 * BYTES.field + 2 * BYTES.map + BYTES.mapEntry + BYTES.string + 2;

function createChannel() {
  // hours: hour number (time / 1 h, a small integer key) -> messages first heard in it.
  return { messages: 0, decrypted: 0, lastDecrypted: null, senders: new Map(), hours: new Map() };
}

module.exports = defineView({
  name: 'channels',
  description: 'Channel hashes heard: name, encrypted or not, message counts, last message, activity, senders.',
  params: {},
  createState: (store) => ({ byHash: new Map(), part: memoryPart(store, 'channels') }),
  apply(state, tx, observation) {
    // Most packets are not channel traffic, and a repeat observation adds nothing here.
    if (tx.channelHash === null || !isFirstObservation(tx, observation)) return false;
    let channel = state.byHash.get(tx.channelHash);
    if (!channel) {
      channel = createChannel();
      state.byHash.set(tx.channelHash, channel);
      if (state.part) state.part.add(CHANNEL_BYTES);
    }
    channel.messages++;
    bump(channel.hours, Math.floor(tx.time / HOUR_MS), 1, state.part);
    if (tx.message) {
      channel.decrypted++;
      // First observations arrive in seq order, so the latest one applied is the newest.
      channel.lastDecrypted = tx;
      if (tx.message.sender !== null) bump(channel.senders, tx.message.sender, 1, state.part);
    }
    return true;
  },
  evict(state, tx) {
    if (tx.channelHash === null) return false;
    const channel = state.byHash.get(tx.channelHash);
    if (!channel) return false;
    bump(channel.hours, Math.floor(tx.time / HOUR_MS), -1, state.part);
    if (tx.message) {
      channel.decrypted--;
      // Eviction is oldest-first: if the newest decrypted message leaves, no decrypted one is left.
      if (channel.lastDecrypted === tx) channel.lastDecrypted = null;
      if (tx.message.sender !== null) bump(channel.senders, tx.message.sender, -1, state.part);
    }
    if (--channel.messages === 0) {
      state.byHash.delete(tx.channelHash);
      if (state.part) state.part.add(-CHANNEL_BYTES);
    }
    return true;
  },
  snapshot(state, params, store, now) {
    const hourlyFrom = hourBucket(now) - (HOURLY_BUCKETS - 1) * HOUR_MS;
    const channels = [];
    for (const [hash, channel] of state.byHash) {
      const deque = store.byChannel.get(hash);
      const last = deque.last();
      const hourly = new Array(HOURLY_BUCKETS);
      for (let i = 0; i < HOURLY_BUCKETS; i++) hourly[i] = channel.hours.get((hourlyFrom + i * HOUR_MS) / HOUR_MS) || 0;
      channels.push({
        hash,
        name: channelName(store, hash),
        encrypted: channel.decrypted === 0,
        messages: channel.messages,
        decrypted: channel.decrypted,
        lastHeard: last.time,
        lastMessage: {
          time: last.time,
          sender: last.message ? last.message.sender : null,
          text: last.message ? last.message.text : null,
        },
        lastSender: channel.lastDecrypted ? channel.lastDecrypted.message.sender : null,
        messagesLastHour: deque.length - deque.lowerBoundTime(now - HOUR_MS),
        messagesLastDay: deque.length - deque.lowerBoundTime(now - DAY_MS),
        hourly,
        senders: channel.senders.size,
      });
    }
    channels.sort((a, b) => b.lastHeard - a.lastHeard || (a.hash < b.hash ? -1 : 1));
    return { channels, hourlyFrom };
  },
});

module.exports.channelName = channelName;
