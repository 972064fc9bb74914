'use strict';
/**
 * Big list fields of a view document, split into a stable part and a moving part, so a publish
 * tick sends only the pieces that changed (issue 10 item 1).
 *
 * Why: DDP `changed` replaces a top-level field whole. `rf.scatter.points` (500 points, ~36 KB)
 * or `nodes.nodes` (~24 KB) went out in full on every update although most of their items had
 * not moved: a dashboard received ~94 KB/s, and a client (or a load generator holding hundreds
 * of them) spent its time parsing what it already had.
 *
 * How: a list of at least `minBytes` (JSON) is cut into chunks at content-defined boundaries
 * (after an item whose own hash says so, ~`averageItems` items per chunk), so inserting or
 * dropping items at one end (a sliding window) or moving a few items leaves every other chunk
 * byte-identical. Each chunk becomes its own top-level field `<field>~<chunk id>` (its id is a
 * hash of its content), and an index field `<field>~` says how to put the value back:
 * `{ chunks: [ids in order], path: [...], base }` where `base` is the field's value with the
 * list replaced by null (`path` [] when the field itself is the list). The publish hub diffs
 * these fields like any other, so a tick sends the index (small) and the new chunks only.
 *
 *   const { fields, signatures } = splitLargeFields(snapshot);    // server (publish hub)
 *   const doc = joinChunkedFields(flatDocument);                   // client (collection transform)
 *
 * Lists handled: a top-level array field, or an array property of a top-level plain object
 * (`scatter: { eligible, points: [...] }`). Nothing else changes shape. A document whose own
 * field names contain `~` is left as it is (no ambiguity). Pure JavaScript, no Meteor.
 *
 * Keyed lists (stable part and moving part): a ranking or a "newest first" page reorders its
 * items with every packet and bumps a counter or a timestamp in each of them, so every
 * content-defined chunk moved on every tick (the dashboard's nodes page, sorted by lastSeen,
 * resent all its ~24 KB each second). A list named in `keyed` ({ [field]: { key, moving } })
 * is sent as
 *   - its items without their moving fields (those set to null, so field order is kept), in
 *     KEY order, chunked as above: these chunks change only when an item enters, leaves or
 *     changes a stable field (a node renamed);
 *   - one small field `<field>~@` = { order, columns }: `order[i]` is the i-th list item's
 *     position among the stable items, `columns[j][i]` its j-th moving field's value;
 *   - the index, with `moving: [field names]`.
 * So a tick where only ranks, counts and times moved sends `<field>~@` (a few hundred bytes to
 * a few KB) and nothing else. Lossless: joinChunkedFields gives back the same items, same field
 * order. A list whose items are not all plain objects with a distinct key and every moving
 * field falls back to the plain chunks.
 */

const CHUNK_DEFAULTS = {
  // Lists smaller than this (JSON bytes) stay one field: splitting would only add overhead.
  minBytes: 4096,
  // Mean items per chunk: a boundary follows an item whose hash is 0 modulo this (at most; a
  // list of fewer than 8 x this items gets smaller chunks, see splitLargeFields).
  averageItems: 16,
  // Mean items per chunk of a keyed list's stable part (see below).
  keyedAverageItems: 4,
};

const SEPARATOR = '~';
// Suffix of a keyed list's moving part: never in a chunk id (base 36 digits and '.').
const MOVING_SUFFIX = '@';

/**
 * The publish hub's keyed lists per view (see the top of this file): the field that names an
 * item, and the fields that move with every packet while the item stays. Why each:
 *   nodes.nodes          sorted by lastSeen: ranks, times and packet counts move per packet;
 *   topology.repeaters   ranked by count, each item carrying its candidate nodes (large, stable);
 *   topology.pairs       same, with both ends' candidates.
 * A view's document that no longer matches (a renamed field) just falls back to plain chunks.
 */
const KEYED_LISTS = Object.freeze({
  nodes: Object.freeze({ nodes: Object.freeze({ key: 'pubKey', moving: Object.freeze(['lastSeen', 'status', 'packets', 'adverts']) }) }),
  topology: Object.freeze({
    repeaters: Object.freeze({ key: 'hop', moving: Object.freeze(['count']) }),
    pairs: Object.freeze({ key: 'pair', moving: Object.freeze(['count']) }),
  }),
});

/** FNV-1a, 32 bits, of a string: fast and stable across processes (boundaries must be). */
function hashString(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** What JSON.stringify puts for an array element (undefined and functions become null). */
function itemSignature(item) {
  const text = JSON.stringify(item);
  return text === undefined ? 'null' : text;
}

// Item texts of immutable items, by identity: a frozen object whose own values are all
// primitives can never change its JSON, so a view that hands out the same frozen item on every
// snapshot (rf's scatter points) has it stringified and hashed once, not on every refresh.
const immutableTexts = new WeakMap();

// Only plain objects and arrays: a frozen Date still changes (setTime), and a frozen getter may
// return something new on every read, so only own data properties holding primitives count.
function isImmutableFlat(item) {
  if (!Object.isFrozen(item) || !(Array.isArray(item) || isPlainObject(item))) return false;
  const descriptors = Object.getOwnPropertyDescriptors(item);
  for (const key of Object.keys(descriptors)) {
    const descriptor = descriptors[key];
    if (!('value' in descriptor)) return false;
    const value = descriptor.value;
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) return false;
  }
  return true;
}

/**
 * Each item's JSON text, its hash (hashString of the text) and the list's JSON size:
 * { parts, hashes, bytes }. Frozen flat items come from the cache above.
 */
function itemTexts(list) {
  const parts = new Array(list.length);
  const hashes = new Array(list.length);
  let bytes = list.length > 0 ? list.length + 1 : 2; // brackets and commas
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const frozen = item !== null && typeof item === 'object' && Object.isFrozen(item);
    let known = frozen ? immutableTexts.get(item) : undefined;
    if (known === undefined) {
      const text = itemSignature(item);
      known = { text, hash: hashString(text) };
      if (frozen && isImmutableFlat(item)) immutableTexts.set(item, known);
    }
    parts[i] = known.text;
    hashes[i] = known.hash;
    bytes += known.text.length;
  }
  return { parts, hashes, bytes };
}

/**
 * Cut `list` into chunks: [{ id, items, signature }] where signature === JSON.stringify(items).
 * Ids are unique within the list (a repeated chunk gets a suffix). `texts` (from itemTexts) when
 * the caller already has them; a chunk's id folds its items' hashes (no second pass over its text).
 */
function chunkList(list, averageItems, texts = itemTexts(list)) {
  const { parts, hashes } = texts;
  const chunks = [];
  const used = new Map();
  let from = 0;
  let fold = 0x811c9dc5;
  const close = (to) => {
    const signature = `[${parts.slice(from, to).join(',')}]`;
    let id = (Math.imul(fold ^ (to - from), 0x01000193) >>> 0).toString(36);
    const seen = used.get(id) || 0;
    used.set(id, seen + 1);
    if (seen > 0) id = `${id}.${seen}`;
    chunks.push({ id, items: list.slice(from, to), signature });
    from = to;
    fold = 0x811c9dc5;
  };
  for (let i = 0; i < list.length; i++) {
    fold = Math.imul(fold ^ hashes[i], 0x01000193);
    if (hashes[i] % averageItems === 0) close(i + 1);
  }
  if (from < list.length || chunks.length === 0) close(list.length);
  return chunks;
}

/**
 * A list's JSON size, the cheaper way: item by item when its items are frozen (their texts are
 * cached, see itemTexts), else one JSON.stringify of the whole list, itemized only if it is
 * then split. { bytes, text } or { bytes, texts }.
 */
function measureList(list) {
  const first = list.length > 0 ? list[0] : null;
  if (first !== null && typeof first === 'object' && Object.isFrozen(first)) {
    const texts = itemTexts(list);
    return { bytes: texts.bytes, text: null, texts };
  }
  const text = JSON.stringify(list);
  return { bytes: text.length, text, texts: null };
}

const listText = (measured) => (measured.text !== null ? measured.text : `[${measured.texts.parts.join(',')}]`);

/**
 * How a field's value is sent: { found: { path, list, texts } } when a list in it (the value
 * itself, or an array property of a plain object) is at least `minBytes` of JSON, else
 * { signature } (its JSON text). Every part of the value is stringified once: a plain object's
 * signature is put together from its properties' texts, the way JSON.stringify writes it.
 */
function describeField(value, minBytes) {
  if (Array.isArray(value)) {
    const measured = measureList(value);
    if (measured.bytes < minBytes) return { signature: listText(measured) };
    return { found: { path: [], list: value, texts: measured.texts || itemTexts(value) } };
  }
  if (!isPlainObject(value) || typeof value.toJSON === 'function') return { signature: JSON.stringify(value) };
  const pieces = [];
  let best = null;
  for (const key of Object.keys(value)) {
    const inner = value[key];
    if (Array.isArray(inner)) {
      const measured = measureList(inner);
      if (measured.bytes >= minBytes && (!best || measured.bytes > best.measured.bytes)) best = { key, list: inner, measured };
      // Once a list is to be split the object's own text is never needed.
      if (!best) pieces.push(`${JSON.stringify(key)}:${listText(measured)}`);
      continue;
    }
    if (best) continue;
    const text = JSON.stringify(inner);
    if (text !== undefined) pieces.push(`${JSON.stringify(key)}:${text}`);
  }
  if (best) return { found: { path: [best.key], list: best.list, texts: best.measured.texts || itemTexts(best.list) } };
  return { signature: `{${pieces.join(',')}}` };
}

/**
 * A keyed list as { stable, order, columns }, or null when `list` does not fit `spec`
 * ({ key, moving }): every item a plain object with a distinct string or number key and every
 * moving field of its own. `stable`: the items in key order, moving fields set to null.
 */
function splitKeyedList(list, spec) {
  if (!spec || typeof spec.key !== 'string' || !Array.isArray(spec.moving) || spec.moving.length === 0) return null;
  const keys = new Array(list.length);
  const seen = new Set();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isPlainObject(item)) return null;
    const key = item[spec.key];
    if (typeof key !== 'string' && typeof key !== 'number') return null;
    const text = String(key);
    if (seen.has(text)) return null;
    seen.add(text);
    keys[i] = text;
    for (const field of spec.moving) if (field === spec.key || !Object.prototype.hasOwnProperty.call(item, field)) return null;
  }
  const byKey = list.map((item, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const position = new Array(list.length);
  const stable = byKey.map((i, at) => {
    position[i] = at;
    const item = { ...list[i] };
    for (const field of spec.moving) item[field] = null;
    return item;
  });
  const columns = spec.moving.map((field) => list.map((item) => item[field]));
  return { stable, order: position, columns };
}

/**
 * Split the big lists of `snapshot` (a view document's top-level fields). Returns
 * { fields, signatures, chunked } where `signatures` maps every output field to its JSON text
 * (so the caller need not stringify them again) and `chunked` counts the fields split.
 * `options.keyed`: { [field]: { key, moving } } for lists sent as a stable and a moving part.
 */
function splitLargeFields(snapshot, options = {}) {
  const settings = { ...CHUNK_DEFAULTS, ...options };
  const keyed = settings.keyed || null;
  const fields = {};
  const signatures = new Map();
  const names = Object.keys(snapshot);
  const ambiguous = names.some((name) => name.includes(SEPARATOR));
  let chunked = 0;
  const plain = (name, value, signature) => {
    fields[name] = value;
    signatures.set(name, signature);
  };
  for (const name of names) {
    const value = snapshot[name];
    if (ambiguous || !(settings.minBytes > 0)) {
      plain(name, value, JSON.stringify(value));
      continue;
    }
    // A keyed list's size is that of what it would be sent as (stable items + moving part), so
    // its items are stringified once, as stable items, not once more as they came.
    const spec = keyed && Array.isArray(value) ? keyed[name] : null;
    const split = spec ? splitKeyedList(value, spec) : null;
    let found = null;
    let movingText = null;
    if (split) {
      const texts = itemTexts(split.stable);
      movingText = JSON.stringify({ order: split.order, columns: split.columns });
      if (texts.bytes + movingText.length >= settings.minBytes) found = { path: [], list: split.stable, texts };
    } else {
      const described = describeField(value, settings.minBytes);
      if (!described.found) {
        plain(name, value, described.signature);
        continue;
      }
      found = described.found;
    }
    if (!found) {
      plain(name, value, JSON.stringify(value));
      continue;
    }
    chunked++;
    // Smaller chunks for a keyed list: an item entering or leaving a page (the nodes page is
    // the 100 most recently heard) then resends a few items, not sixteen.
    // A short list (the home page's 16 newest packets) gets at least ~8 chunks: with 16 items a
    // chunk it was one chunk, resent whole when a single packet arrived.
    const averageItems = split ? settings.keyedAverageItems : Math.max(2, Math.min(settings.averageItems, Math.round(found.list.length / 8)));
    const chunks = chunkList(found.list, Math.max(1, Math.floor(averageItems)), found.texts);
    for (const chunk of chunks) {
      const field = `${name}${SEPARATOR}${chunk.id}`;
      fields[field] = chunk.items;
      signatures.set(field, chunk.signature);
    }
    const base = found.path.length === 0 ? null : { ...value, [found.path[0]]: null };
    const index = { chunks: chunks.map((chunk) => chunk.id), path: found.path, base };
    if (split) {
      index.moving = spec.moving.slice();
      const movingField = `${name}${SEPARATOR}${MOVING_SUFFIX}`;
      fields[movingField] = { order: split.order, columns: split.columns };
      signatures.set(movingField, movingText);
    }
    fields[`${name}${SEPARATOR}`] = index;
    signatures.set(`${name}${SEPARATOR}`, JSON.stringify(index));
  }
  return { fields, signatures, chunked };
}

/** A keyed list back from its stable items and its moving part (items it cannot place are left out). */
function joinKeyedList(stable, moving, names) {
  if (!moving || !Array.isArray(moving.order) || !Array.isArray(moving.columns)) return [];
  const list = [];
  for (let i = 0; i < moving.order.length; i++) {
    const base = stable[moving.order[i]];
    if (!base) continue;
    const item = { ...base };
    for (let j = 0; j < names.length; j++) item[names[j]] = Array.isArray(moving.columns[j]) ? moving.columns[j][i] : null;
    list.push(item);
  }
  return list;
}

/**
 * A document as splitLargeFields made it -> the document as the view computed it. Documents
 * without index fields come back as they are (same object). A missing chunk (never expected:
 * the hub sends a chunk with the index that names it) leaves its items out rather than throw.
 */
function joinChunkedFields(doc) {
  if (!doc || typeof doc !== 'object') return doc;
  let indexes = null;
  for (const key of Object.keys(doc)) {
    if (key.length > 1 && key.endsWith(SEPARATOR) && key.indexOf(SEPARATOR) === key.length - 1) (indexes = indexes || []).push(key);
  }
  if (!indexes) return doc;
  const out = {};
  const consumed = new Set();
  for (const key of indexes) {
    const name = key.slice(0, -1);
    const index = doc[key];
    consumed.add(key);
    if (!index || !Array.isArray(index.chunks)) continue;
    let list = [];
    for (const id of index.chunks) {
      const field = `${name}${SEPARATOR}${id}`;
      consumed.add(field);
      const items = doc[field];
      if (Array.isArray(items)) for (const item of items) list.push(item);
    }
    if (Array.isArray(index.moving)) {
      const movingField = `${name}${SEPARATOR}${MOVING_SUFFIX}`;
      consumed.add(movingField);
      list = joinKeyedList(list, doc[movingField], index.moving);
    }
    out[name] = Array.isArray(index.path) && index.path.length === 1 && isPlainObject(index.base) ? { ...index.base, [index.path[0]]: list } : list;
  }
  const prefixes = indexes.map((key) => key);
  for (const key of Object.keys(doc)) {
    if (consumed.has(key)) continue;
    // A chunk no index names any more (a client between two messages): not part of the value.
    if (prefixes.some((prefix) => key.startsWith(prefix))) continue;
    if (!(key in out)) out[key] = doc[key];
  }
  return out;
}

module.exports = { splitLargeFields, joinChunkedFields, chunkList, itemTexts, hashString, CHUNK_DEFAULTS, KEYED_LISTS, SEPARATOR, MOVING_SUFFIX };
