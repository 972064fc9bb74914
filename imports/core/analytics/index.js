'use strict';
/** Every analytics view, in the order the dashboard lists them. One file per view. */
const VIEW_DEFINITIONS = [
  require('./stats'),
  require('./packets'),
  require('./observers'),
  require('./observer'),
  require('./nodes'),
  require('./places'),
  require('./node'),
  require('./bulk-health'),
  require('./channels'),
  require('./channel-messages'),
  require('./channel-analytics'),
  require('./rf'),
  require('./topology'),
  require('./hash-sizes'),
  require('./subpaths'),
  require('./neighbours'),
  require('./prefixes'),
  require('./traces'),
  require('./routes'),
  require('./distances'),
];

const VIEWS_BY_NAME = new Map(VIEW_DEFINITIONS.map((definition) => [definition.name, definition]));

module.exports = { VIEW_DEFINITIONS, VIEWS_BY_NAME };
