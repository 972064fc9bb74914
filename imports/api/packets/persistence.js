/**
 * MongoDB persistence under Meteor: the collections, then the core's write-behind persistence
 * (imports/core/persistence.js) on their raw driver handles. Reloads the store at start-up,
 * then writes behind ingest; reads never touch MongoDB after that. Retention runs hourly.
 */
import { Meteor } from 'meteor/meteor';
import { Mongo } from 'meteor/mongo';
import { createPersistence, COLLECTION_NAMES } from '/imports/core/persistence';

const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

// Server-only collections: no publication exposes them and no client can write to them.
export const Collections = Meteor.isServer
  ? Object.fromEntries(COLLECTION_NAMES.map((name) => [name, new Mongo.Collection(name)]))
  : {};

export async function startPersistence({ engine, settings, log }) {
  const collections = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, Collections[name].rawCollection()]));
  const persistence = createPersistence({
    collections,
    store: engine.store,
    log,
    batchSize: settings.persistence.batchSize,
    maxPendingWrites: settings.persistence.maxPendingWrites,
    retentionDays: settings.persistence.retentionDays,
  });
  try {
    await persistence.ensureIndexes();
  } catch (err) {
    log.warn(`could not create indexes (${err.message}); continuing, writes will retry`);
  }
  if (settings.persistence.reloadOnStart) {
    const started = Date.now();
    try {
      await persistence.loadInto(engine, { log });
      log.info(`reloaded ${engine.store.size} transmissions from MongoDB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      log.warn(`reload from MongoDB failed (${err.message}); starting with an empty store`);
    }
  }
  const retention = Meteor.setInterval(() => {
    persistence.applyRetention(Date.now()).catch((err) => log.warn(`retention: ${err.message}`));
  }, RETENTION_INTERVAL_MS);
  persistence.stopRetention = () => Meteor.clearInterval(retention);
  return persistence;
}
