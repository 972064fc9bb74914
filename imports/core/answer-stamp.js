'use strict';
/**
 * What a cached view answer says about its age. Methods and REST answer through the TTL cache
 * (cache.js), whose entry holds while the view's version is unchanged: no packet stored since
 * it was computed changed that view, so the answer accounts for every packet up to the store's
 * newest. Its `newestPacketAt`, stamped at compute time, would instead say it is as old as the
 * entry: on the large simulated mesh `view.channels` sat unchanged for 2 s at a time, so method
 * answers looked 2-3.5 s old (bench:delivery's method "data age", the UI's data-age figure) when
 * they were current. `generatedAt` stays the compute time: when the figures were made.
 */

/**
 * The answer to return for `cached` (a decorated snapshot: { ..., generatedAt, newestPacketAt })
 * when the store's newest packet is `storeNewest` (ms, or null): the same object when nothing
 * newer was stored, else a shallow copy with `newestPacketAt` moved up. The cached object itself
 * is never changed (other callers share it).
 */
function stampAnswer(cached, storeNewest) {
  if (cached === null || typeof cached !== 'object' || !Number.isFinite(storeNewest)) return cached;
  if (Number.isFinite(cached.newestPacketAt) && cached.newestPacketAt >= storeNewest) return cached;
  if (!('newestPacketAt' in cached)) return cached; // not a decorated snapshot (extra views)
  return { ...cached, newestPacketAt: storeNewest };
}

/**
 * A view's answer through the TTL cache, stamped as above: what methods and REST both return.
 * `decorate(name, snapshot)` adds generatedAt / newestPacketAt to a fresh snapshot.
 */
async function cachedAnswer({ cache, decorate, store }, name, view, params) {
  const answer = await cache.get(name, params, view.versionFor(params), () => decorate(name, view.snapshot(params, Date.now())));
  return stampAnswer(answer, store.lastTime || null);
}

module.exports = { stampAnswer, cachedAnswer };
