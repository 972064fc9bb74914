/** The app's one registry of data sources (see view-sources.js), wired to Meteor. */
import { createViewSources } from './view-sources';
import { meteorTransport } from './meteor-transport';

export const viewSources = createViewSources(meteorTransport);
