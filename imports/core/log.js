'use strict';
/**
 * A `{ info, warn, error }` logger from whatever the caller passed: missing methods (or no
 * logger at all) become silent, so modules can log unconditionally.
 */
function resolveLog(log) {
  const silent = () => {};
  if (!log) return { info: silent, warn: silent, error: silent };
  return {
    info: typeof log.info === 'function' ? log.info.bind(log) : silent,
    warn: typeof log.warn === 'function' ? log.warn.bind(log) : silent,
    error: typeof log.error === 'function' ? log.error.bind(log) : silent,
  };
}

module.exports = { resolveLog };
