/**
 * Reactive publications: one per view (`view.<name>`) and the live packet feed
 * (`packets.live`). Thin: validate, join the shared publish hub, relay its changes.
 * The hub (imports/core/publish-hub.js) computes each (view, params) snapshot once per tick
 * for all its subscribers and sends only changed fields, at most once per publish interval.
 */
import { Meteor } from 'meteor/meteor';
import { check, Match } from 'meteor/check';
import { DDPServer } from 'meteor/ddp-server';
import { viewDocumentId } from '/imports/core/view-key';
import { SnapshotError } from '/imports/core/publish-hub';
import { CHUNK_DEFAULTS } from '/imports/core/field-chunks';
import { liveFeedParams, LIVE_VIEW, LIVE_SHAPE } from '/imports/core/live-feed';
import { VIEW_DOCUMENTS, LIVE_PACKETS } from './collections';

/**
 * Relay hub changes to one subscription: through the shared sender (one serialization per
 * message for the whole group, imports/api/ddp/shared-send.js), which falls back to
 * `this.added/changed/removed` by itself. A view document goes out under the id the client
 * computes from the params it passed (viewDocumentId), not the hub's normalized key, so the
 * client finds it without knowing the server's defaults.
 */
/**
 * Join the hub or end this subscription with a clear error: `bad-params` for parameters the
 * view refuses, `snapshot-failed` when the view cannot compute (the hub leaves nothing behind,
 * and other subscribers are unaffected).
 */
// `paramsOf` runs inside the try: a bad filter argument is a bad-params error like any bad param.
function subscribeOrFail(publication, hub, sharedSender, viewName, paramsOf, collection, shape) {
  let subscription;
  try {
    const params = paramsOf();
    const documentId = shape === 'document' ? viewDocumentId(viewName, params) : null;
    subscription = hub.subscribe(viewName, params, sharedSender.relay(publication, collection, documentId), shape);
  } catch (err) {
    publication.error(err instanceof SnapshotError ? new Meteor.Error(err.error, err.reason) : new Meteor.Error('bad-params', err.message));
    return;
  }
  publication.onStop(() => subscription.stop());
  publication.ready();
}

export function registerViewPublications({ hub, viewNames, settings, sharedSender }) {
  // Big lists go out as chunks unless turned off (A/B studies): settings.publish.chunkFields
  // false or MESHPULSE_CHUNK_FIELDS=off sends every field whole, as before.
  const chunksOff = settings.publish.chunkFields === false || process.env.MESHPULSE_CHUNK_FIELDS === 'off';
  hub.options.chunkMinBytes = chunksOff ? 0 : CHUNK_DEFAULTS.minBytes;
  const names = [];
  for (const viewName of viewNames) {
    const name = `view.${viewName}`;
    names.push(name);
    Meteor.publish(name, function publishView(params) {
      check(params, Match.Maybe(Object));
      subscribeOrFail(this, hub, sharedSender, viewName, () => params || {}, VIEW_DOCUMENTS, 'document');
    });
  }
  // The live feed: `packets` view params, and a packet filter expression (in the params or as a
  // second argument) the server evaluates, so only matching packets are sent (core/live-feed.js).
  Meteor.publish('packets.live', function publishLivePackets(params, filter) {
    check(params, Match.Maybe(Object));
    check(filter, Match.Maybe(String));
    subscribeOrFail(this, hub, sharedSender, LIVE_VIEW, () => liveFeedParams(params, filter), LIVE_PACKETS, LIVE_SHAPE);
  });
  names.push('packets.live');

  // NO_MERGE: the server keeps no per-connection copy of these documents (the hub already
  // holds one shared copy per group), which is what makes 1,000 dashboards cheap. Meteor looks
  // the strategy up by COLLECTION name. Safe because no two subscriptions of one client ever
  // send the same document id: view document ids embed the view and the params.
  if (settings.publish.noMerge && DDPServer.publicationStrategies && Meteor.server.setPublicationStrategy) {
    for (const collection of [VIEW_DOCUMENTS, LIVE_PACKETS]) {
      Meteor.server.setPublicationStrategy(collection, DDPServer.publicationStrategies.NO_MERGE);
    }
  }
  return names;
}
