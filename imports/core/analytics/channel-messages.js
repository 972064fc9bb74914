'use strict';
/**
 * channelMessages: the decrypted messages of one channel, newest first, with repeated sends
 * folded together. A sender's radio that sends the same message again (same sender, sender
 * timestamp and text, but fresh ciphertext, so a different content hash) gives one message
 * whose `repeats` is the number of transmissions heard, with every copy's hash, first/last
 * heard, the observers that heard any copy, the best SNR and the hop counts seen.
 *
 * Params: `channel` is a channel hash (2 hex digits) or a channel name from the keyring
 * (exact, case-sensitive; a name only lists messages decrypted under that name); `limit`;
 * `before` pages back: only messages first heard before that time (ms). Messages are ordered
 * by first heard (their oldest copy), so a retry never moves a message; `nextBefore` is the
 * cursor for the next page (null when this page is not full).
 *
 * State: one Map entry per distinct message, keyed by a 30-bit hash of its identity (a small
 * integer, so no key string is kept): the transmission, or an array of the transmissions whose
 * identity hashes alike (its copies, plus any other message that collides), oldest first.
 * The list itself is read from the store's byChannel deque walked newest-first: a message is
 * listed when the walk reaches its oldest copy, so a page costs O(limit x copies) plus any
 * undecryptable traffic interleaved on the hash.
 */
const { defineView, memoryPart } = require('./view');
const { isFirstObservation } = require('../stored-records');
const { BYTES } = require('../memory-account');
const { channelName } = require('./channels');

const HASH_RE = /^[0-9a-fA-F]{2}$/;
const NAME_SCOPE = 'name:';

/** FNV-1a over a string's UTF-16 units, continuing from `hash`. */
function mixString(hash, text) {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return Math.imul(h ^ 0xff, 16777619); // field separator
}

/** Identity of a message across its retries (channel, sender, sender's clock, text), hashed to a small integer. */
function identityKey(tx) {
  const { message } = tx;
  let h = Math.imul(0x811c9dc5 ^ message.timestamp, 16777619);
  h = mixString(h, message.text);
  h = mixString(h, message.sender === null ? '' : message.sender);
  h = mixString(h, message.channel);
  h = mixString(h, tx.channelHash);
  return h & 0x3fffffff; // a Smi whatever the V8 build
}

function sameMessage(a, b) {
  return a.channelHash === b.channelHash && a.message.timestamp === b.message.timestamp && a.message.text === b.message.text
    && a.message.sender === b.message.sender && a.message.channel === b.message.channel;
}

/** The copies of `tx`'s message among the transmissions under its identity key, oldest first. */
function copiesOf(entry, tx) {
  return entry.filter((other) => sameMessage(other, tx));
}

/** Scopes a decrypted transmission changes: its hash, and its channel name (for name subscribers). */
// The scope lists apply and evict return, one per (channel hash, channel name): built once, not
// per report (a new array and a concatenated key to hash on every message observation).
// A message's channel is a keyring channel, so the pairs are few; past SCOPE_CACHE_MAX distinct
// pairs (only a keyring that large) further lists are built per call as before.
const SCOPE_CACHE_MAX = 1024;
const scopeCache = new Map(); // channel name -> Map(channel hash -> frozen scope list)

function scopesOf(tx) {
  const hash = tx.channelHash;
  const name = tx.message.channel;
  let byHash = scopeCache.get(name);
  let scopes = byHash === undefined ? undefined : byHash.get(hash);
  if (scopes !== undefined) return scopes;
  scopes = Object.freeze([hash, NAME_SCOPE + name]);
  if (scopeCache.size < SCOPE_CACHE_MAX) {
    if (byHash === undefined) {
      byHash = new Map();
      scopeCache.set(name, byHash);
    }
    if (byHash.size < 256) byHash.set(hash, scopes);
  }
  return scopes;
}

function summarize(copies) {
  const first = copies[0];
  const { message } = first;
  const observers = new Set();
  const hopCounts = new Set();
  let lastHeard = first.time;
  let observations = 0;
  let bestSnr = null;
  for (const tx of copies) {
    for (const observation of tx.observations) {
      observations++;
      observers.add(observation.observer.id);
      hopCounts.add(observation.path.length);
      if (observation.time > lastHeard) lastHeard = observation.time;
      if (observation.snr !== null && (bestSnr === null || observation.snr > bestSnr)) bestSnr = observation.snr;
    }
  }
  return {
    channelHash: first.channelHash,
    channel: message.channel,
    sender: message.sender,
    text: message.text,
    textType: message.textType,
    timestamp: message.timestamp,
    repeats: copies.length,
    hashes: copies.map((tx) => tx.hash),
    firstHeard: first.time,
    lastHeard,
    observers: Array.from(observers).sort(),
    observations,
    bestSnr,
    hopCounts: Array.from(hopCounts).sort((a, b) => a - b),
  };
}

/** Newest-first walk over several deques at once (a name held by keys with different hashes). */
function walkNewest(deques, before, visit) {
  const positions = deques.map((deque) => (before === null ? deque.length : deque.lowerBoundTime(before)) - 1);
  for (;;) {
    let pick = -1;
    for (let d = 0; d < deques.length; d++) {
      if (positions[d] >= 0 && (pick < 0 || deques[d].at(positions[d]).seq > deques[pick].at(positions[pick]).seq)) pick = d;
    }
    if (pick < 0) return;
    const tx = deques[pick].at(positions[pick]--);
    if (visit(tx) === false) return;
  }
}

module.exports = defineView({
  name: 'channelMessages',
  description: 'Decrypted messages of one channel, newest first, repeated sends folded into one.',
  params: {
    channel: { type: 'string', required: true, maxLength: 64 },
    limit: { type: 'int', min: 1, max: 200, default: 50 },
    before: { type: 'number', min: 0 },
  },
  createState: (store) => ({ messages: new Map(), part: memoryPart(store, 'channelMessages') }),
  apply(state, tx, observation) {
    if (tx.message === null) return false;
    // Later observations only add observers, which the snapshot reads from the copies.
    if (isFirstObservation(tx, observation)) {
      if (state.part) state.part.add(BYTES.mapEntry);
      const key = identityKey(tx);
      const entry = state.messages.get(key);
      if (entry === undefined) state.messages.set(key, tx);
      else if (Array.isArray(entry)) entry.push(tx);
      else state.messages.set(key, [entry, tx]);
    }
    return scopesOf(tx);
  },
  evict(state, tx) {
    if (tx.message === null) return false;
    const key = identityKey(tx);
    const entry = state.messages.get(key);
    if (state.part) state.part.add(-BYTES.mapEntry);
    // Eviction is oldest-first, so the evicted transmission is the oldest under its key.
    if (entry === tx) state.messages.delete(key);
    else if (Array.isArray(entry)) {
      entry.shift();
      if (entry.length === 1) state.messages.set(key, entry[0]);
    }
    return scopesOf(tx);
  },
  scopeOf(params) {
    return HASH_RE.test(params.channel) ? params.channel.toLowerCase() : NAME_SCOPE + params.channel;
  },
  snapshot(state, params, store) {
    let hashes;
    let name = null;
    if (HASH_RE.test(params.channel)) {
      hashes = [params.channel.toLowerCase()];
    } else {
      name = params.channel;
      hashes = [];
      if (store.keyring) {
        for (const [hash, keys] of store.keyring.byHash) if (keys.some((key) => key.name === name)) hashes.push(hash);
      }
    }
    const deques = hashes.map((hash) => store.byChannel.get(hash)).filter(Boolean);
    const messages = [];
    walkNewest(deques, params.before, (tx) => {
      if (tx.message === null || (name !== null && tx.message.channel !== name)) return true;
      const entry = state.messages.get(identityKey(tx));
      // List a message at its oldest copy; newer copies are skipped on the way there.
      if (entry === tx) messages.push(summarize([tx]));
      else if (Array.isArray(entry) && entry.find((other) => sameMessage(other, tx)) === tx) messages.push(summarize(copiesOf(entry, tx)));
      else return true;
      return messages.length < params.limit;
    });
    return {
      channel: {
        hashes,
        name: name !== null ? name : channelName(store, hashes[0]),
      },
      messages,
      nextBefore: messages.length === params.limit ? messages[messages.length - 1].firstHeard : null,
    };
  },
});

module.exports.identityKey = identityKey;
// For its tests: the scope lists, and how many channel names they are kept for.
module.exports.scopesOf = scopesOf;
module.exports.scopeCacheSize = () => scopeCache.size;
