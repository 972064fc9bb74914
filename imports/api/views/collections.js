/**
 * Client-side collections that publications fill by hand (`this.added/changed`): nothing
 * is stored in MongoDB for them, and clients cannot write to them (no allow rules, no
 * client-side methods that insert).
 */
import { Mongo } from 'meteor/mongo';
import { Meteor } from 'meteor/meteor';

/** One document per subscribed (view, params); _id = the params key. */
export const VIEW_DOCUMENTS = 'meshpulse.views';
/** The live packet feed: one document per transmission, _id = content hash. */
export const LIVE_PACKETS = 'meshpulse.live';

export const ViewDocuments = Meteor.isClient ? new Mongo.Collection(VIEW_DOCUMENTS) : null;
export const LivePackets = Meteor.isClient ? new Mongo.Collection(LIVE_PACKETS) : null;
