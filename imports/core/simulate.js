'use strict';
/**
 * The synthetic MeshCore mesh; the code lives in ./simulate/ (simulator.js puts the rooms
 * together). This file keeps `require('.../core/simulate')` working for every caller.
 */
module.exports = require('./simulate/simulator');
