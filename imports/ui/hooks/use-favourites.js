/**
 * Favourite nodes (lib/favourites.js) as an external store over localStorage: every star and
 * list re-renders when one is toggled, in this tab and (through the `storage` event) in others.
 */
import { useSyncExternalStore } from 'react';
import { FAVOURITES_STORAGE_KEY, parseFavourites, toggleFavourite } from '../lib/favourites';

const listeners = new Set();
let keys = null;

function read() {
  try {
    return parseFavourites(window.localStorage.getItem(FAVOURITES_STORAGE_KEY));
  } catch (err) {
    return []; // storage blocked
  }
}

function current() {
  if (keys === null) keys = read();
  return keys;
}

function notify() {
  for (const listener of Array.from(listeners)) listener();
}

function onStorage(event) {
  if (event.key !== FAVOURITES_STORAGE_KEY && event.key !== null) return;
  keys = read();
  notify();
}

function subscribe(listener) {
  if (listeners.size === 0 && typeof window !== 'undefined') window.addEventListener('storage', onStorage);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && typeof window !== 'undefined') window.removeEventListener('storage', onStorage);
  };
}

export function toggleFavouriteNode(pubKey) {
  keys = toggleFavourite(current(), pubKey);
  try {
    window.localStorage.setItem(FAVOURITES_STORAGE_KEY, JSON.stringify(keys));
  } catch (err) {
    // kept for this tab only
  }
  notify();
}

/** { favourites: keys, isFavourite(key), toggle(key) } */
export function useFavourites() {
  const favourites = useSyncExternalStore(subscribe, current);
  return {
    favourites,
    isFavourite: (pubKey) => Boolean(pubKey) && favourites.includes(String(pubKey).toLowerCase()),
    toggle: toggleFavouriteNode,
  };
}
