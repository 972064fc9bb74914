/**
 * Methods: one per view (`view.<name>`), returning the same snapshot its publication sends,
 * through the TTL cache (invalidated by view version). Thin: validate, cache, return.
 * A view that throws answers Meteor.Error('snapshot-failed', ...); the cache stores nothing for it.
 */
import { Meteor } from 'meteor/meteor';
import { check, Match } from 'meteor/check';
import { SnapshotError } from '/imports/core/publish-hub';
import { cachedAnswer } from '/imports/core/answer-stamp';

/**
 * The view's answer, or a clear Meteor.Error naming the view when it cannot compute
 * (`region-scope-busy` when too many region-scoped instances were built this minute: retry).
 */
async function snapshotOrFail(viewName, compute) {
  try {
    return await compute();
  } catch (err) {
    const failure = err instanceof SnapshotError ? err : new SnapshotError(viewName, err);
    throw new Meteor.Error(failure.error, failure.reason);
  }
}

export function registerViewMethods({ engine, cache, decorate, metrics, extraViews = {} }) {
  const methods = {};
  const names = [];
  for (const viewName of [...engine.views.keys(), ...Object.keys(extraViews)]) {
    const name = `view.${viewName}`;
    names.push(name);
    /** Returns the view's snapshot for `params` (same document as the publication). */
    methods[name] = async function viewMethod(params) {
      check(params, Match.Maybe(Object));
      const started = process.hrtime.bigint();
      try {
        if (extraViews[viewName]) return snapshotOrFail(viewName, () => extraViews[viewName].snapshot(params || {}));
        const view = engine.view(viewName);
        let normalized;
        try {
          normalized = view.normalizeParams(params || {});
        } catch (err) {
          throw new Meteor.Error('bad-params', err.message);
        }
        return await snapshotOrFail(viewName, () => cachedAnswer({ cache, decorate, store: engine.store }, viewName, view, normalized));
      } finally {
        metrics.recordMethod(Number(process.hrtime.bigint() - started) / 1e6);
      }
    };
  }
  Meteor.methods(methods);
  return names;
}
