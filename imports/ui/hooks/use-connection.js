/** Meteor's DDP connection status ({ connected, status, retryCount }), reactive. */
import { Meteor } from 'meteor/meteor';
import { useTracker } from 'meteor/react-meteor-data';

export function useConnection() {
  return useTracker(() => {
    const { connected, status, retryCount } = Meteor.status();
    return { connected, status, retryCount };
  }, []);
}
