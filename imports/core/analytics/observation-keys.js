'use strict';
/**
 * Which keys one observation names, and which of them the earlier observations of its
 * transmission named: the matching behind the node tracker (node-tracker.js). A transmission
 * names its advert's public key, its src and dest hashes (as address keys, `@d2`: see addressKey),
 * and every hop of every observed path; a key it names as a hop is flagged HOP (the node relayed
 * the packet).
 *
 * Matches holds one observation's keys (a handful: arrays beat a Map); ObservationPeers lists,
 * per key, the keys next to it in that observation; KnownKeys keeps, for recent transmissions,
 * the union of what their earlier observations named, so that telling a new key from a known
 * one does not re-match every earlier path.
 */

// Flags of one node's match with one transmission.
const MATCHED = 1;
const HOP = 2; // the node is a hop of some observed path: it relayed the packet

/**
 * A src or dest hash is keyed apart from the same bytes seen as a hop: `@d2` is "the packet was
 * addressed from or to a node starting d2", `d2` "a node starting d2 relayed it". Only
 * repeaters relay, so a companion, room or sensor sums its public key and its address key, never
 * the hop keys of the repeaters that share its first byte (on a 5,000-node mesh about 20 nodes
 * share each byte, and the busiest repeater's relays used to be credited to every companion
 * that shared it). A repeater sums both. The strings are made once per hash value.
 */
const ADDRESS_MARK = '@';
const addressKeys = new Map();

function addressKey(hash) {
  let key = addressKeys.get(hash);
  if (key === undefined) {
    key = ADDRESS_MARK + hash;
    if (addressKeys.size < 4096) addressKeys.set(hash, key); // src/dest hashes are 1 byte: 256 at most
  }
  return key;
}

function isAddressKey(key) {
  return key.charCodeAt(0) === 64; // '@'
}

/** The hex a key stands for (an address key without its mark). */
function hexOfKey(key) {
  return isAddressKey(key) ? key.slice(1) : key;
}

/**
 * Peers of every key of one observation, each as a list of indexes into the observation's
 * Matches: for a key, the hops next to it in the path, the first hop when the key is the
 * packet's origin (its advert key or src hash), and the src/dest counterpart; never the key
 * itself, each peer once, in that order. One pass over the path comparing small integers (the
 * key index of each hop, from matchPathSlots): a scan of the path and a string search per key
 * was most of apply's own time on a large mesh's 5-8-hop paths.
 */
class ObservationPeers {
  constructor() {
    // lists[m][0 .. counts[m] - 1]: key m's peers (arrays reused; their length is never reset).
    this.lists = [];
    this.counts = [];
  }

  /** Collect the peers of own's keys; `hopSlots[i]` is the index in `own` of path[i]. */
  collect(tx, path, own, hopSlots) {
    while (this.lists.length < own.size) {
      this.lists.push([]);
      this.counts.push(0);
    }
    for (let m = 0; m < own.size; m++) this.counts[m] = 0;
    const last = path.length - 1;
    for (let i = 0; i <= last; i++) {
      const m = hopSlots[i];
      if (i > 0) this.add(m, hopSlots[i - 1]);
      if (i < last) this.add(m, hopSlots[i + 1]);
    }
    const srcSlot = tx.srcHash !== null ? own.indexOf(addressKey(tx.srcHash)) : -1;
    if (path.length > 0) {
      if (srcSlot >= 0) this.add(srcSlot, hopSlots[0]);
      if (tx.advert !== null) this.add(own.indexOf(tx.advert.pubKey), hopSlots[0]);
    }
    if (srcSlot >= 0 && tx.destHash !== null) {
      const destSlot = own.indexOf(addressKey(tx.destHash));
      this.add(srcSlot, destSlot);
      this.add(destSlot, srcSlot);
    }
    return this;
  }

  add(m, peer) {
    if (peer === m) return;
    const list = this.lists[m];
    const count = this.counts[m];
    for (let i = 0; i < count; i++) if (list[i] === peer) return;
    list[count] = peer;
    this.counts[m] = count + 1;
  }
}

/** The keys one transmission names, with flags: a handful at most, so arrays beat a Map. */
class Matches {
  constructor() {
    // keys[0 .. size - 1] are live; clear() only resets size (setting an array's length is a
    // runtime call, and these are cleared on every report).
    this.keys = [];
    this.flags = [];
    this.size = 0;
    // For a transmission's running union (see KnownKeys): how many of its observations it holds.
    this.observationsMatched = 0;
  }

  clear() {
    this.size = 0;
    this.observationsMatched = 0;
    return this;
  }

  indexOf(key) {
    const keys = this.keys;
    for (let i = 0; i < this.size; i++) if (keys[i] === key) return i;
    return -1;
  }

  /** Returns the key's index. */
  add(key, flags) {
    const at = this.indexOf(key);
    if (at >= 0) {
      this.flags[at] |= flags;
      return at;
    }
    const size = this.size;
    if (size === this.keys.length) {
      this.keys.push(key);
      this.flags.push(flags);
    } else {
      this.keys[size] = key;
      this.flags[size] = flags;
    }
    this.size = size + 1;
    return size;
  }

  flagsOf(key) {
    const at = this.indexOf(key);
    return at < 0 ? 0 : this.flags[at];
  }
}

/**
 * The keys the earlier observations of recent transmissions named, so that apply() tells a new
 * key from a known one without re-matching every earlier path of the transmission (on a large
 * mesh a transmission has dozens of observations: that re-matching was quadratic per
 * transmission). Bounded: the oldest entries go first, and a transmission whose entry went (or
 * is out of step, e.g. a late view replaying) is matched from its observations again, as before.
 * Holds references to at most KNOWN_KEYS_SIZE transmissions and their few keys (~0.5 MB).
 *
 * Direct-mapped by the transmission's store sequence number: a transmission's slot is its seq
 * modulo the capacity, so the recent transmissions (consecutive seqs) each have their own and no
 * Map is probed, set or deleted per report (the Map of transmission -> slot it replaces was ~3%
 * of default-mesh ingest). A newer transmission takes the slot of the one `capacity` seqs older.
 */
const KNOWN_KEYS_SIZE = 2048;

class KnownKeys {
  /** `capacity`: transmissions kept (tests make it tiny, so that entries go all the time). */
  constructor(capacity = KNOWN_KEYS_SIZE) {
    this.capacity = capacity;
    this.transmissions = new Array(capacity).fill(null); // slot -> the transmission it holds
    this.unions = new Array(capacity).fill(null); // slot -> Matches over its tx's observations [0, observationsMatched)
  }

  /** Matches of tx's observations before `index` (none before the first: an empty union). */
  before(tx, index) {
    const slot = tx.seq % this.capacity;
    let union = this.unions[slot];
    if (union === null) {
      union = new Matches();
      this.unions[slot] = union;
    }
    if (this.transmissions[slot] === tx) {
      if (union.observationsMatched === index) return union;
    } else {
      this.transmissions[slot] = tx;
    }
    union.clear();
    if (index > 0) {
      matchStatic(tx, union);
      const observations = tx.observations;
      for (let i = 0; i < index; i++) if (!seenPath(observations, i)) matchPath(observations[i].path, union);
    }
    union.observationsMatched = index;
    return union;
  }

  /** Fold the observation at `index` (whose keys are `own`) into tx's union. */
  advance(union, own, index) {
    if (union.observationsMatched !== index) return;
    for (let m = 0; m < own.size; m++) union.add(own.keys[m], own.flags[m]);
    union.observationsMatched = index + 1;
  }

  /** Is tx's union kept (its slot not taken by a newer transmission or forgotten)? */
  holds(tx) {
    return this.transmissions[tx.seq % this.capacity] === tx;
  }

  forget(tx) {
    const slot = tx.seq % this.capacity;
    if (this.transmissions[slot] !== tx) return;
    this.transmissions[slot] = null;
    this.unions[slot].clear();
  }
}

/** Is observations[i].path the same object as an earlier one's (already matched)? */
function seenPath(observations, i) {
  const path = observations[i].path;
  for (let j = 0; j < i; j++) if (observations[j].path === path) return true;
  return false;
}

/** Add the keys named by the transmission itself (advert key, src and dest address keys) to `matches`. */
function matchStatic(tx, matches) {
  if (tx.advert !== null) matches.add(tx.advert.pubKey, MATCHED);
  if (tx.srcHash !== null) matches.add(addressKey(tx.srcHash), MATCHED);
  if (tx.destHash !== null) matches.add(addressKey(tx.destHash), MATCHED);
  return matches;
}

function matchPath(path, matches) {
  for (let i = 0; i < path.length; i++) matches.add(path[i], MATCHED | HOP);
  return matches;
}

/** matchPath, also writing the index in `matches` of each hop to hopSlots[i]. */
function matchPathSlots(path, matches, hopSlots) {
  for (let i = 0; i < path.length; i++) hopSlots[i] = matches.add(path[i], MATCHED | HOP);
  return matches;
}

module.exports = { MATCHED, HOP, KNOWN_KEYS_SIZE, addressKey, isAddressKey, hexOfKey, Matches, ObservationPeers, KnownKeys, seenPath, matchStatic, matchPath, matchPathSlots };
