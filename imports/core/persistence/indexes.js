'use strict';
/**
 * The indexes persistence.js needs (unique ids, replay order, retention) and retention itself:
 * TTL indexes where the server honours them, and applyRetention() for a deletion now.
 */
const { COLLECTION_NAMES } = require('./documents');

const DAY_MS = 24 * 3600 * 1000;
// createIndex codes for "an index with this name or key exists with other options".
const INDEX_CONFLICT_CODES = new Set([85, 86]);

/** `retentionDays`: days per collection (null: kept); `log`: { warn } for a refused TTL index. */
function createIndexes({ collections, retentionDays, log }) {
  /** The collection's indexes; none when the collection does not exist yet. */
  async function listIndexes(name) {
    try {
      return await collections[name].indexes();
    } catch (err) {
      if (err.code === 26 || /ns does not exist|not found/i.test(err.message)) return []; // NamespaceNotFound
      throw err;
    }
  }

  /**
   * Create an index, or rebuild it when one on the same key exists with other options (retention
   * changed, TTL switched on or off). Compared here because some servers keep the old index silently.
   */
  async function ensureIndex(name, key, indexOptions = {}) {
    const collection = collections[name];
    const keyText = JSON.stringify(key);
    const existing = (await listIndexes(name)).find((index) => JSON.stringify(index.key) === keyText);
    if (existing) {
      const same = Boolean(existing.unique) === Boolean(indexOptions.unique) && existing.expireAfterSeconds === indexOptions.expireAfterSeconds;
      if (same) return existing.name;
      log.info(`persistence: rebuilding index ${name}.${existing.name} with ${JSON.stringify(indexOptions)}`);
      await collection.dropIndex(existing.name);
    }
    try {
      return await collection.createIndex(key, indexOptions);
    } catch (err) {
      // Another process created it meanwhile with other options.
      if (!INDEX_CONFLICT_CODES.has(err.code)) throw err;
      const indexName = Object.entries(key).map(([field, direction]) => `${field}_${direction}`).join('_');
      await collection.dropIndex(indexName);
      return collection.createIndex(key, indexOptions);
    }
  }

  /** A TTL index on a Date field when retention is set, else a plain one; falls back to plain where TTL is refused. */
  async function ensureRetentionIndex(name, field) {
    const days = retentionDays[name];
    if (days === null || days === undefined) return ensureIndex(name, { [field]: 1 });
    try {
      return await ensureIndex(name, { [field]: 1 }, { expireAfterSeconds: Math.round(days * 86400) });
    } catch (err) {
      log.warn(`persistence: no TTL index on ${name}.${field} (${err.message}); applyRetention() still deletes old documents`);
      return ensureIndex(name, { [field]: 1 });
    }
  }

  async function ensureIndexes() {
    await Promise.all([
      ensureIndex('transmissions', { hash: 1 }, { unique: true }),
      // time + ingestOrder: replay order and retention; size makes the reload's newest-first walk index-only.
      ensureIndex('transmissions', { time: 1, ingestOrder: 1, size: 1 }),
      ensureRetentionIndex('transmissions', 'at'),
      ensureIndex('observations', { hash: 1 }),
      ensureIndex('observations', { time: 1, ingestOrder: 1 }),
      ensureRetentionIndex('observations', 'at'),
      ensureIndex('nodes', { pubKey: 1 }, { unique: true }),
      ensureIndex('nodes', { firstSeen: 1 }),
      ensureRetentionIndex('nodes', 'lastSeenAt'),
      ensureIndex('observers', { id: 1 }, { unique: true }),
      ensureRetentionIndex('observers', 'lastSeenAt'),
      ensureRetentionIndex('droppedPackets', 'receivedAt'),
    ]);
  }

  /**
   * Delete what is older than `retentionDays` per collection, now (TTL indexes do the same on
   * the server's schedule, where they work). Resolves with { collection: deletedCount }.
   */
  async function applyRetention(now = Date.now()) {
    const filters = {
      transmissions: (cutoff) => ({ time: { $lt: cutoff } }),
      observations: (cutoff) => ({ time: { $lt: cutoff } }),
      nodes: (cutoff) => ({ lastSeen: { $lt: cutoff } }),
      observers: (cutoff) => ({ lastSeen: { $lt: cutoff } }),
      droppedPackets: (cutoff) => ({ receivedAt: { $lt: new Date(cutoff) } }),
    };
    const deleted = {};
    for (const name of COLLECTION_NAMES) {
      const days = retentionDays[name];
      if (days === null || days === undefined) continue;
      const result = await collections[name].deleteMany(filters[name](now - days * DAY_MS));
      deleted[name] = result.deletedCount;
    }
    return deleted;
  }

  return { ensureIndexes, applyRetention };
}

module.exports = { createIndexes };
