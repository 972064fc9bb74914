'use strict';
/**
 * The live packet feed (publication `packets.live`): the `packets` view's rows, one per hash,
 * newest first, kept current through the publish hub, with the same parameters as the view,
 * the Wireshark-style `filter` expression included (imports/core/packet-filter.js). The filter
 * is evaluated on the server for the subscription, so a client receives only matching packets.
 *
 * The filter may come inside the params (`{ filter, region, … }`, what the dashboard sends) or as
 * the publication's second argument (`subscribe('packets.live', params, filter)`); naming two
 * different filters is refused rather than guessed. Bad params throw the view's ParamError, with
 * the filter's parse position (`packets: parameter "filter" does not parse: at 9: …`); the
 * Meteor glue turns it into Meteor.Error('bad-params'). Pure: no Meteor, tested under Node.
 */
const { ParamError } = require('./analytics/view');

const LIVE_VIEW = 'packets';
const LIVE_SHAPE = 'rows';
const LIVE_ROW_KEY = 'hash';

/** The packets-view params of a live subscription: `params` with `filter` merged in. */
function liveFeedParams(params, filter) {
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw new ParamError(LIVE_VIEW, '*', 'must be an object');
  }
  const merged = { ...(params || {}) };
  if (filter === undefined || filter === null || filter === '') return merged;
  if (typeof filter !== 'string') throw new ParamError(LIVE_VIEW, 'filter', 'must be a string');
  const inParams = merged.filter;
  if (inParams !== undefined && inParams !== null && inParams !== '' && inParams !== filter) {
    throw new ParamError(LIVE_VIEW, 'filter', 'is given twice with different expressions (in the params and as an argument)');
  }
  merged.filter = filter;
  return merged;
}

/**
 * Join the live feed through the hub: `sink` gets added/changed/removed rows keyed by hash.
 * Throws ParamError (bad params or filter: nothing is subscribed) or the hub's SnapshotError.
 */
function subscribeLiveFeed(hub, params, filter, sink) {
  return hub.subscribe(LIVE_VIEW, liveFeedParams(params, filter), sink, LIVE_SHAPE, LIVE_ROW_KEY);
}

module.exports = { liveFeedParams, subscribeLiveFeed, LIVE_VIEW, LIVE_SHAPE, LIVE_ROW_KEY };
