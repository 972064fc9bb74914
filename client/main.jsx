// Client entry point: apply the theme, mount React, nothing else.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { Meteor } from 'meteor/meteor';
import { App } from '/imports/ui/App';
import { applyInitialTheme } from '/imports/ui/hooks/use-theme';

applyInitialTheme();

Meteor.startup(() => {
  createRoot(document.getElementById('react-target')).render(<App />);
});
