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

/**
 * One colour per role, used by badges, the map and its legend; one per payload type, so a type
 * reads the same in every table and chart. CSS variables (client/main.css defines a dark and a
 * light value of each), usable as a style value or an SVG fill.
 */
const ROLE_COLORS = {
  repeater: 'var(--role-repeater)',
  companion: 'var(--role-companion)',
  room: 'var(--role-room)',
  sensor: 'var(--role-sensor)',
  unknown: 'var(--role-unknown)',
};

const TYPE_COLOR_IDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15];
const TYPE_COLORS = Object.fromEntries(TYPE_COLOR_IDS.map((id) => [id, `var(--type-${id})`]));

function payloadTypeName(type) {
  return PAYLOAD_TYPES[type] || `TYPE_${type}`;
}

function routeTypeName(route) {
  return ROUTE_TYPES[route] || `ROUTE_${route}`;
}

module.exports = { ROUTE_TYPES, PAYLOAD_TYPES, ROLES, NODE_STATUSES, ROLE_COLORS, TYPE_COLORS, payloadTypeName, routeTypeName };
