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

module.exports = { deferred, sleep };
