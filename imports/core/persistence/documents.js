'use strict';
/**
 * The MongoDB documents of the packet store (persistence.js writes them; its header lists their
 * fields), and the directory merged back from them at reload: what a document looks like
 * changes for other reasons than how it is buffered or read back.
 */
const { checkText, INPUT_LIMITS } = require('../input-limits');

const COLLECTION_NAMES = ['transmissions', 'observations', 'nodes', 'observers', 'droppedPackets'];

// ---- Document builders ----------------------------------------------------------------

function transmissionDocument(tx, ingestOrder, raw) {
  const doc = {
    _id: tx.hash,
    hash: tx.hash,
    raw,
    time: tx.time,
    at: new Date(tx.time),
    ingestOrder,
    routeType: tx.routeType,
    payloadType: tx.payloadType,
    payloadVersion: tx.payloadVersion,
    hashSize: tx.hashSize,
    hopCount: tx.hopCount,
    size: tx.size,
  };
  // Only the fields a packet type has, to keep documents small.
  if (tx.srcHash) doc.srcHash = tx.srcHash;
  if (tx.destHash) doc.destHash = tx.destHash;
  if (tx.channelHash) doc.channelHash = tx.channelHash;
  if (tx.advert) doc.advertPubKey = tx.advert.pubKey;
  return doc;
}

/** `createdRaw`: the transmission's raw hex when this observation created it, else null. */
function observationDocument(result, report, ingestOrder, createdRaw) {
  const { tx, observation, isNew } = result;
  const observerId = observation.observer.id;
  // Keyed on the observer's own timestamp when it sent one: the same report received by two
  // MeshPulse instances (or re-delivered by the broker) maps to one document. Otherwise the
  // time it was received (not the store's clamped time).
  let reportedTime = observation.time;
  if (report && Number.isFinite(report.observerTime)) reportedTime = report.observerTime;
  else if (report && Number.isFinite(report.time)) reportedTime = report.time;
  const doc = {
    _id: `${tx.hash}:${observerId}:${reportedTime}`,
    hash: tx.hash,
    observerId,
    time: observation.time,
    at: new Date(observation.time),
    ingestOrder,
    snr: observation.snr,
    rssi: observation.rssi,
    score: observation.score,
    direction: observation.direction,
  };
  if (isNew) doc.first = true;
  // The creating observation carries the transmission's raw, so a reload reads this collection
  // alone (documents written before it did come with their transmission document's raw).
  if (createdRaw) doc.raw = createdRaw;
  // The store shares tx.path when this observer heard the same path.
  else if (observation.path !== tx.path && report && typeof report.raw === 'string') doc.raw = report.raw.toLowerCase();
  return doc;
}

function nodeUpdate(entry) {
  return {
    updateOne: {
      filter: { _id: entry.pubKey },
      update: {
        $setOnInsert: { pubKey: entry.pubKey },
        $set: { name: entry.name ?? null, role: entry.role ?? null, lat: entry.lat ?? null, lon: entry.lon ?? null },
        $min: { firstSeen: entry.firstSeen },
        $max: { lastSeen: entry.lastSeen, lastSeenAt: new Date(entry.lastSeen), lastAdvert: entry.lastAdvert ?? 0, adverts: entry.adverts ?? 0 },
      },
      upsert: true,
    },
  };
}

function observerUpdate(entry) {
  return {
    updateOne: {
      filter: { _id: entry.id },
      update: {
        $setOnInsert: { id: entry.id },
        $set: { name: entry.name ?? entry.id, region: entry.region ?? null },
        $min: { firstSeen: entry.firstSeen },
        $max: { lastSeen: entry.lastSeen, lastSeenAt: new Date(entry.lastSeen), reports: entry.reports ?? 0 },
      },
      upsert: true,
    },
  };
}

/** A node entry from an advert alone, for when no store was given to read the directory from. */
function nodeFromAdvert(tx) {
  const { advert } = tx;
  return { pubKey: advert.pubKey, name: advert.name, role: advert.role, lat: advert.lat, lon: advert.lon, firstSeen: tx.time, lastSeen: tx.time, lastAdvert: advert.timestamp, adverts: 1 };
}

// ---- Directory restore: PacketStore.restoreNode / restoreObserver validate and add; merge here --------

/** A finite number, or null: stored documents are input too (hand-edited, older versions). */
function finite(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function shortText(value, max) {
  return typeof value === 'string' && value.length > 0 && checkText(value, max) ? value : null;
}

/** { firstSeen, lastSeen } over the observer documents' finite times (NaN when there are none). */
function observedSpan(observerDocs) {
  let firstSeen = Infinity;
  let lastSeen = -Infinity;
  for (const doc of observerDocs) {
    const first = doc ? finite(doc.firstSeen) : null;
    const last = doc ? finite(doc.lastSeen) : null;
    if (first !== null && first < firstSeen) firstSeen = first;
    if (last !== null && last > lastSeen) lastSeen = last;
  }
  return Number.isFinite(firstSeen) && Number.isFinite(lastSeen) ? { firstSeen, lastSeen } : { firstSeen: NaN, lastSeen: NaN };
}

/** After replay: the persisted directory knows what the replayed window may not (older adverts, hops). */
function mergeNode(store, node, doc) {
  const firstSeen = finite(doc.firstSeen);
  const lastSeen = finite(doc.lastSeen);
  if (firstSeen !== null && firstSeen < node.firstSeen) node.firstSeen = firstSeen;
  if (lastSeen !== null && lastSeen > node.lastSeen && lastSeen <= store.now() + INPUT_LIMITS.futureToleranceMs) node.lastSeen = lastSeen;
  const adverts = finite(doc.adverts);
  if (adverts !== null && adverts > node.adverts) node.adverts = adverts;
  const lastAdvert = finite(doc.lastAdvert) || 0;
  // The same clock window as live adverts: a stored far-future timestamp must not pin the node.
  if (lastAdvert >= node.lastAdvert && lastAdvert * 1000 <= store.now() + store.options.advertClockWindowMs) {
    node.lastAdvert = lastAdvert;
    const name = shortText(doc.name, INPUT_LIMITS.observerNameLength);
    if (name) store.directory.renameNode(node, name);
    const role = shortText(doc.role, 16);
    const lat = finite(doc.lat);
    const lon = finite(doc.lon);
    const placed = lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
    store.directory.placeNode(node, role || node.role, placed ? lat : node.lat, placed ? lon : node.lon);
  }
}

function mergeObserver(observer, doc) {
  const firstSeen = finite(doc.firstSeen);
  const lastSeen = finite(doc.lastSeen);
  const reports = finite(doc.reports);
  if (firstSeen !== null && firstSeen < observer.firstSeen) observer.firstSeen = firstSeen;
  if (lastSeen !== null && lastSeen > observer.lastSeen) observer.lastSeen = lastSeen;
  if (reports !== null && reports > observer.reports) observer.reports = reports;
  // Name and region only while the observer is idle: a stored one's bytes are charged as they are.
  if (observer.stored > 0) return;
  const name = shortText(doc.name, INPUT_LIMITS.observerNameLength);
  if (name) observer.name = name;
  const region = shortText(doc.region, INPUT_LIMITS.regionLength);
  if (region) observer.region = region;
}

module.exports = {
  COLLECTION_NAMES, transmissionDocument, observationDocument, nodeUpdate, observerUpdate, nodeFromAdvert, observedSpan, mergeNode, mergeObserver,
};
