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
 */

const CHUNK_DEFAULTS = {
  // Lists smaller than this (JSON bytes) stay one field: splitting would only add overhead.
  minBytes: 4096,
  // Mean items per chunk: a boundary follows an item whose hash is 0 modulo this.
  averageItems: 16,
};

const SEPARATOR = '~';

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

/**
 * Cut `list` into chunks: [{ id, items, signature }] where signature === JSON.stringify(items).
 * Ids are unique within the list (a repeated chunk gets a suffix).
 */
function chunkList(list, averageItems) {
  const chunks = [];
  const used = new Map();
  let items = [];
  let parts = [];
  const close = () => {
    const signature = `[${parts.join(',')}]`;
    let id = hashString(signature).toString(36);
    const seen = used.get(id) || 0;
    used.set(id, seen + 1);
    if (seen > 0) id = `${id}.${seen}`;
    chunks.push({ id, items, signature });
    items = [];
    parts = [];
  };
  for (const item of list) {
    const signature = itemSignature(item);
    items.push(item);
    parts.push(signature);
    if (hashString(signature) % averageItems === 0) close();
  }
  if (items.length > 0 || chunks.length === 0) close();
  return chunks;
}

/** The big list inside a field's value: { path, list, size } or null. */
function findList(value, signature, minBytes) {
  if (Array.isArray(value)) return signature.length >= minBytes ? { path: [], list: value } : null;
  if (!isPlainObject(value) || signature.length < minBytes) return null;
  let best = null;
  for (const key of Object.keys(value)) {
    const inner = value[key];
    if (!Array.isArray(inner)) continue;
    const size = JSON.stringify(inner).length;
    if (size >= minBytes && (!best || size > best.size)) best = { path: [key], list: inner, size };
  }
  return best;
}

/**
 * Split the big lists of `snapshot` (a view document's top-level fields). Returns
 * { fields, signatures, chunked } where `signatures` maps every output field to its JSON text
 * (so the caller need not stringify them again) and `chunked` counts the fields split.
 */
function splitLargeFields(snapshot, options = {}) {
  const settings = { ...CHUNK_DEFAULTS, ...options };
  const fields = {};
  const signatures = new Map();
  const names = Object.keys(snapshot);
  const ambiguous = names.some((name) => name.includes(SEPARATOR));
  let chunked = 0;
  for (const name of names) {
    const value = snapshot[name];
    const signature = JSON.stringify(value);
    const found = ambiguous || !(settings.minBytes > 0) || signature === undefined ? null : findList(value, signature, settings.minBytes);
    if (!found) {
      fields[name] = value;
      signatures.set(name, signature);
      continue;
    }
    chunked++;
    const chunks = chunkList(found.list, Math.max(1, Math.floor(settings.averageItems)));
    for (const chunk of chunks) {
      const field = `${name}${SEPARATOR}${chunk.id}`;
      fields[field] = chunk.items;
      signatures.set(field, chunk.signature);
    }
    const base = found.path.length === 0 ? null : { ...value, [found.path[0]]: null };
    const index = { chunks: chunks.map((chunk) => chunk.id), path: found.path, base };
    fields[`${name}${SEPARATOR}`] = index;
    signatures.set(`${name}${SEPARATOR}`, JSON.stringify(index));
  }
  return { fields, signatures, chunked };
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
    const list = [];
    for (const id of index.chunks) {
      const field = `${name}${SEPARATOR}${id}`;
      consumed.add(field);
      const items = doc[field];
      if (Array.isArray(items)) for (const item of items) list.push(item);
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

module.exports = { splitLargeFields, joinChunkedFields, chunkList, hashString, CHUNK_DEFAULTS, SEPARATOR };
