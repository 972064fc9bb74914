'use strict';
/**
 * channelAnalytics: the channel overview page. Over the group transmissions still stored:
 *   activeChannels     channel hashes with a transmission first heard at or after now - 24 h;
 *   activeDecryptable  of those, the ones with a decrypted message in that window;
 *   topSenders         the 15 senders with most decrypted transmissions (a retry counts again),
 *                      each with the channels they wrote in;
 *   timeline           per channel hash, counts per time bucket over the last `hours` hours
 *                      (oldest first, from `timeline.from`; the bucket holding `now` is last).
 *                      `bucket` (time-buckets.js) picks minutes, 5 or 15 minutes or hours; 'auto'
 *                      keeps the heatmap to at most 60 columns over the span with data. Minute
 *                      and 5-minute counts reach back 3 and 24 hours from the newest packet, so a
 *                      finer timeline starts no earlier (`timeline.bucket.from`);
 *   lengths            decrypted texts by length in characters (code points), bins of 20, 180+ last.
 *
 * State is O(1) per transmission: per-hash time buckets, a sender Map and the length bins.
 * Only the first observation of a transmission counts; later ones change nothing here.
 */
const { BYTES, entryBytes } = require('../memory-account');
const { defineView, memoryPart, bump, HOUR_MS, DAY_MS } = require('./view');
const { isFirstObservation } = require('../stored-records');
const { TimeCounts, chooseBucket, describeBucket, bucketStart, bucketParam, BUCKET_MS, newestTime } = require('./time-buckets');
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

// A channel entry (its object) and a sender entry (its object and its Map), plus the key,
// charged by charge(). A channel's time buckets are charged by TimeCounts.
const CHANNEL_BYTES = BYTES.object + 2 * BYTES.field;
const SENDER_BYTES = BYTES.object + 2 * BYTES.field + BYTES.map;
// The timeline heatmap's widest 'auto' choice.
const TIMELINE_MAX_COLUMNS = 60;

function charge(state, bytes, key) {
  if (state.part) state.part.add(bytes + Math.sign(bytes) * entryBytes(key));
}

module.exports = defineView({
  name: 'channelAnalytics',
  description: 'Active channels, top senders, time x channel timeline (minute to hour buckets), message lengths.',
  params: {
    hours: { type: 'int', min: 1, max: 48, default: 24 },
    bucket: bucketParam,
  },
  createState: (store) => ({
    part: memoryPart(store, 'channelAnalytics'),
    byHash: new Map(), // hash -> { messages, lastDecrypted }
    perTime: new TimeCounts({ width: 1, keyed: true, part: memoryPart(store, 'channelAnalytics') }), // bucket -> hash -> [messages]
    senders: new Map(), // sender -> { messages, channels: Map channel name -> count }
    lengths: new Array(LENGTH_BINS).fill(0),
    messages: 0,
    decrypted: 0,
  }),
  apply(state, tx, observation) {
    if (tx.channelHash === null || !isFirstObservation(tx, observation)) return false;
    let channel = state.byHash.get(tx.channelHash);
    if (!channel) {
      channel = { messages: 0, lastDecrypted: null };
      state.byHash.set(tx.channelHash, channel);
      charge(state, CHANNEL_BYTES, tx.channelHash);
    }
    channel.messages++;
    state.messages++;
    state.perTime.add(tx.time, tx.channelHash, 0, 1);
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
          charge(state, SENDER_BYTES, message.sender);
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
    state.perTime.add(tx.time, tx.channelHash, 0, -1);
    if (--channel.messages === 0) {
      state.byHash.delete(tx.channelHash);
      charge(state, -CHANNEL_BYTES, tx.channelHash);
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
          charge(state, -SENDER_BYTES, message.sender);
        }
      }
    }
    return true;
  },
  snapshot(state, params, store, now) {
    const dayAgo = now - DAY_MS;
    const { size, from, columns } = timelineWindow(state, params, store, now);
    const perHash = state.perTime.columns(size, { from, count: columns, newest: newestTime(store) });
    let activeChannels = 0;
    let activeDecryptable = 0;
    const timeline = [];
    for (const [hash, channel] of state.byHash) {
      if (store.byChannel.get(hash).last().time >= dayAgo) {
        activeChannels++;
        if (channel.lastDecrypted && channel.lastDecrypted.time >= dayAgo) activeDecryptable++;
      }
      const counts = perHash.get(hash);
      if (!counts) continue;
      let total = 0;
      for (let i = 0; i < counts.length; i++) total += counts[i];
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
      timeline: {
        from,
        hours: params.hours,
        bucket: describeBucket(size, params.bucket, state.perTime.fromOf(size, newestTime(store))),
        columns,
        channels: timeline,
      },
      lengths: state.lengths.map((count, bin) => ({
        from: bin * LENGTH_BIN,
        to: bin === LENGTH_BINS - 1 ? null : (bin + 1) * LENGTH_BIN - 1,
        count,
      })),
    };
  },
});

/**
 * The timeline's bucket size and columns: the last `hours` hours up to the bucket holding
 * `now`, starting no earlier than the size's exact window. 'auto' looks at the span from the
 * window's start (or the oldest stored packet, when later) to now.
 */
function timelineWindow(state, params, store, now) {
  const windowStart = bucketStart(now, HOUR_MS) - (params.hours - 1) * HOUR_MS;
  const oldestStored = store.fifo.length ? store.fifo.first().time : now;
  const size = chooseBucket(params.bucket, {
    oldest: Math.max(windowStart, Math.min(oldestStored, now)), newest: now, lastTime: newestTime(store), maxPoints: TIMELINE_MAX_COLUMNS, counts: state.perTime,
  });
  const ms = BUCKET_MS[size];
  const last = bucketStart(now, ms);
  const exactFrom = state.perTime.fromOf(size, newestTime(store));
  const from = Math.max(windowStart, Number.isFinite(exactFrom) ? exactFrom : windowStart);
  return { size, from, columns: Math.max(0, (last - from) / ms + 1) };
}

module.exports.codePointLength = codePointLength;
