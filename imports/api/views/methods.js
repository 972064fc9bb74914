/**
 * Methods: one per view (`view.<name>`), returning the same snapshot its publication sends,
 * through the TTL cache (invalidated by view version). Thin: validate, cache, return.
 */
import { Meteor } from 'meteor/meteor';
import { check, Match } from 'meteor/check';

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
        if (extraViews[viewName]) return extraViews[viewName].snapshot(params || {});
        const view = engine.view(viewName);
        let normalized;
        try {
          normalized = view.normalizeParams(params || {});
        } catch (err) {
          throw new Meteor.Error('bad-params', err.message);
        }
        return await cache.get(viewName, normalized, view.versionFor(normalized), () => decorate(viewName, view.snapshot(normalized, Date.now())));
      } finally {
        metrics.recordMethod(Number(process.hrtime.bigint() - started) / 1e6);
      }
    };
  }
  Meteor.methods(methods);
  return names;
}
