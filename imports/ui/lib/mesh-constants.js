'use strict';
/**
 * MeshCore names the dashboard shows. Copied from imports/core/decode.js on purpose: that file
 * needs Node's crypto, and the client may import nothing from imports/core but view-key.js.
 * tests/ui/mesh-constants.test.js checks the copies still match.
 */
const ROUTE_TYPES = ['TRANSPORT_FLOOD', 'FLOOD', 'DIRECT', 'TRANSPORT_DIRECT'];
const PAYLOAD_TYPES = {
  0: 'REQ', 1: 'RESPONSE', 2: 'TXT_MSG', 3: 'ACK', 4: 'ADVERT', 5: 'GRP_TXT', 6: 'GRP_DATA',
  7: 'ANON_REQ', 8: 'PATH', 9: 'TRACE', 10: 'MULTIPART', 11: 'CONTROL', 15: 'RAW_CUSTOM',
};
const ROLES = { 0: 'unknown', 1: 'companion', 2: 'repeater', 3: 'room', 4: 'sensor' };
const NODE_STATUSES = ['active', 'degraded', 'silent'];

/** One colour per role, used by badges, the map and its legend. */
const ROLE_COLORS = {
  repeater: '#3b82f6',
  companion: '#10b981',
  room: '#f59e0b',
  sensor: '#a855f7',
  unknown: '#94a3b8',
};

/** One colour per payload type, so a type reads the same in every table and chart. */
const TYPE_COLORS = {
  0: '#60a5fa', 1: '#38bdf8', 2: '#34d399', 3: '#a3a3a3', 4: '#f59e0b', 5: '#f472b6', 6: '#e879f9',
  7: '#fb7185', 8: '#a78bfa', 9: '#2dd4bf', 10: '#fbbf24', 11: '#94a3b8', 15: '#cbd5e1',
};

function payloadTypeName(type) {
  return PAYLOAD_TYPES[type] || `TYPE_${type}`;
}

function routeTypeName(route) {
  return ROUTE_TYPES[route] || `ROUTE_${route}`;
}

module.exports = { ROUTE_TYPES, PAYLOAD_TYPES, ROLES, NODE_STATUSES, ROLE_COLORS, TYPE_COLORS, payloadTypeName, routeTypeName };
