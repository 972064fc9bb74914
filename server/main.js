// Server entry point: everything happens in the start-up wiring.
import '/imports/startup/server';
