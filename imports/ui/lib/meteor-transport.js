/**
 * The Meteor side of view-sources.js: subscriptions, method calls and the two client
 * collections the publications fill. Kept apart so view-sources.js stays plain JavaScript.
 */
import { Meteor } from 'meteor/meteor';
import { ViewDocuments, LivePackets } from '/imports/api/views/collections';

function cursorFor(kind, documentId) {
  return kind === 'live' ? LivePackets.find({}) : ViewDocuments.find({ _id: documentId });
}

export const meteorTransport = {
  subscribe(publication, params, callbacks) {
    return Meteor.subscribe(publication, params, callbacks);
  },
  call(method, params) {
    return Meteor.callAsync(method, params);
  },
  observe(kind, documentId, onChange) {
    // Only "something changed" is needed; read() fetches the data when the throttle allows.
    return cursorFor(kind, documentId).observeChanges({ added: onChange, changed: onChange, removed: onChange });
  },
  read(kind, documentId, limit) {
    if (kind === 'live') return LivePackets.find({}, { sort: { time: -1, hash: 1 }, limit: limit || 200 }).fetch();
    return ViewDocuments.findOne({ _id: documentId }) || null;
  },
};
