/**
 * Client-side collections that publications fill by hand (`this.added/changed`): nothing
 * is stored in MongoDB for them, and clients cannot write to them (no allow rules, no
 * client-side methods that insert).
 */
import { Mongo } from 'meteor/mongo';
import { Meteor } from 'meteor/meteor';
import { joinChunkedFields } from '/imports/core/field-chunks';

/** One document per subscribed (view, params); _id = the params key. */
export const VIEW_DOCUMENTS = 'meshpulse.views';
/** The live packet feed: one document per transmission, _id = content hash. */
export const LIVE_PACKETS = 'meshpulse.live';

// The publish hub sends big lists as content-defined chunks (imports/core/field-chunks.js) so
// a tick resends only the chunks that moved; find/findOne give the document back whole.
export const ViewDocuments = Meteor.isClient ? new Mongo.Collection(VIEW_DOCUMENTS, { transform: joinChunkedFields }) : null;
export const LivePackets = Meteor.isClient ? new Mongo.Collection(LIVE_PACKETS) : null;
