'use strict';
/** Small helpers for tests of asynchronous code. */

/** A promise plus its resolve/reject, to hold a handler open until the test lets it go. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Poll `predicate` (sync or async; a throw counts as not yet) every `pollMs` until it returns
 * something truthy, which is returned; rejects after `timeoutMs` naming `what`.
 */
async function waitUntil(predicate, what = 'condition', timeoutMs = 10000, pollMs = 50) {
  const started = Date.now();
  for (;;) {
    let value;
    try { value = await predicate(); } catch { value = null; }
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`not met in ${timeoutMs} ms: ${what}`);
    await sleep(pollMs);
  }
}

module.exports = { deferred, sleep, waitUntil };
