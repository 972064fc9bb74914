// Client entry point: mount React, nothing else.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { Meteor } from 'meteor/meteor';
import { App } from '/imports/ui/App';

Meteor.startup(() => {
  createRoot(document.getElementById('react-target')).render(<App />);
});
