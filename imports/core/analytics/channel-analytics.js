'use strict';
/**
 * channelAnalytics: the channel overview page. Over the group transmissions still stored:
 *   activeChannels     channel hashes with a transmission first heard at or after now - 24 h;
 *   activeDecryptable  of those, the ones with a decrypted message in that window;
 *   topSenders         the 15 senders with most decrypted transmissions (a retry counts again),
 *                      each with the channels they wrote in;
 *   timeline           per channel hash, counts per clock hour for the last `hours` hours
 *                      (oldest first, from `timeline.from`; the hour holding `now` is last);
 *   lengths            decrypted texts by length in characters (code points), bins of 20, 180+ last.
 *
 * State is O(1) per transmission: per-hash hour buckets, a sender Map and the length bins.
 * Only the first observation of a transmission counts; later ones change nothing here.
 */
const { BYTES, entryBytes } = require('../memory-account');
const { defineView, memoryPart, bump, hourBucket, HOUR_MS, DAY_MS } = require('./view');
const { channelName } = require('./channels');

const TOP_SENDERS = 15;
const LENGTH_BIN = 20;
const LENGTH_BINS = 10; // 0-19 … 160-179, then 180+

/** Length in Unicode code points (an emoji is one character, not two UTF-16 units). */
function codePointLength(text) {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) length++; // low surrogates belong to the previous character
  }
  return length;
}

function lengthBin(text) {
  return Math.min(LENGTH_BINS - 1, Math.floor(codePointLength(text) / LENGTH_BIN));
}

/** The `limit` largest entries by `messages` (ties by key), without sorting every sender. */
function topByMessages(map, limit) {
  const top = [];
  const before = (a, b) => b[1].messages - a[1].messages || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  for (const entry of map) {
    if (top.length === limit && before(entry, top[limit - 1]) >= 0) continue;
    let at = top.length === limit ? limit - 1 : top.length;
    while (at > 0 && before(entry, top[at - 1]) < 0) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = entry;
  }
  return top;
}

// A channel or sender entry: its object and its Map (plus the key, charged by charge()).
const ENTRY_BYTES = BYTES.object + 3 * BYTES.field + BYTES.map;

function charge(state, bytes, key) {
  if (state.part) state.part.add(bytes + Math.sign(bytes) * entryBytes(key));
}

module.exports = defineView({
  name: 'channelAnalytics',
  description: 'Active channels, top senders, hour x channel timeline, message lengths.',
  params: {
    hours: { type: 'int', min: 1, max: 48, default: 24 },
  },
  createState: (store) => ({
    part: memoryPart(store, 'channelAnalytics'),
    byHash: new Map(), // hash -> { messages, hours: Map hour -> count, lastDecrypted }
    senders: new Map(), // sender -> { messages, channels: Map channel name -> count }
    lengths: new Array(LENGTH_BINS).fill(0),
    messages: 0,
    decrypted: 0,
  }),
  apply(state, tx, observation) {
    if (tx.channelHash === null || observation !== tx.observations[0]) return false;
    let channel = state.byHash.get(tx.channelHash);
    if (!channel) {
      channel = { messages: 0, hours: new Map(), lastDecrypted: null };
      state.byHash.set(tx.channelHash, channel);
      charge(state, ENTRY_BYTES, tx.channelHash);
    }
    channel.messages++;
    state.messages++;
    bump(channel.hours, hourBucket(tx.time), 1, state.part);
    const { message } = tx;
    if (message) {
      state.decrypted++;
      channel.lastDecrypted = tx; // first observations arrive in seq order
      state.lengths[lengthBin(message.text)]++;
      if (message.sender !== null) {
        let sender = state.senders.get(message.sender);
        if (!sender) {
          sender = { messages: 0, channels: new Map() };
          state.senders.set(message.sender, sender);
          charge(state, ENTRY_BYTES, message.sender);
        }
        sender.messages++;
        bump(sender.channels, message.channel, 1, state.part);
      }
    }
    return true;
  },
  evict(state, tx) {
    if (tx.channelHash === null) return false;
    const channel = state.byHash.get(tx.channelHash);
    if (!channel) return false;
    state.messages--;
    bump(channel.hours, hourBucket(tx.time), -1, state.part);
    if (--channel.messages === 0) {
      state.byHash.delete(tx.channelHash);
      charge(state, -ENTRY_BYTES, tx.channelHash);
    }
    const { message } = tx;
    if (message) {
      state.decrypted--;
      // Oldest-first eviction: the newest decrypted message leaving means none is left.
      if (channel.lastDecrypted === tx) channel.lastDecrypted = null;
      state.lengths[lengthBin(message.text)]--;
      if (message.sender !== null) {
        const sender = state.senders.get(message.sender);
        bump(sender.channels, message.channel, -1, state.part);
        if (--sender.messages === 0) {
          state.senders.delete(message.sender);
          charge(state, -ENTRY_BYTES, message.sender);
        }
      }
    }
    return true;
  },
  snapshot(state, params, store, now) {
    const dayAgo = now - DAY_MS;
    const from = hourBucket(now) - (params.hours - 1) * HOUR_MS;
    let activeChannels = 0;
    let activeDecryptable = 0;
    const timeline = [];
    for (const [hash, channel] of state.byHash) {
      if (store.byChannel.get(hash).last().time >= dayAgo) {
        activeChannels++;
        if (channel.lastDecrypted && channel.lastDecrypted.time >= dayAgo) activeDecryptable++;
      }
      const counts = new Array(params.hours);
      let total = 0;
      for (let i = 0; i < params.hours; i++) {
        counts[i] = channel.hours.get(from + i * HOUR_MS) || 0;
        total += counts[i];
      }
      if (total > 0) timeline.push({ hash, name: channelName(store, hash), total, counts });
    }
    timeline.sort((a, b) => b.total - a.total || (a.hash < b.hash ? -1 : 1));
    const topSenders = topByMessages(state.senders, TOP_SENDERS).map(([sender, entry]) => ({
      sender,
      messages: entry.messages,
      channels: Array.from(entry.channels, ([name, messages]) => ({ name, messages }))
        .sort((a, b) => b.messages - a.messages || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    }));
    return {
      channels: state.byHash.size,
      activeChannels,
      activeDecryptable,
      messages: state.messages,
      decrypted: state.decrypted,
      senders: state.senders.size,
      topSenders,
      timeline: { from, hours: params.hours, channels: timeline },
      lengths: state.lengths.map((count, bin) => ({
        from: bin * LENGTH_BIN,
        to: bin === LENGTH_BINS - 1 ? null : (bin + 1) * LENGTH_BIN - 1,
        count,
      })),
    };
  },
});

module.exports.codePointLength = codePointLength;
