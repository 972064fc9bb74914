/** A star that keeps a node among this browser's favourites (localStorage). */
import React from 'react';
import { useFavourites } from '../hooks/use-favourites';

export function FavouriteStar({ pubKey, name }) {
  const { isFavourite, toggle } = useFavourites();
  if (!pubKey) return null;
  const on = isFavourite(pubKey);
  const label = `${on ? 'Remove' : 'Add'} ${name || 'this node'} ${on ? 'from' : 'to'} favourites`;
  return (
    <button type="button" className={on ? 'star on' : 'star'} data-testid="favourite-star" aria-pressed={on}
      title={label} aria-label={label} onClick={(event) => { event.preventDefault(); event.stopPropagation(); toggle(pubKey); }}>
      {on ? '★' : '☆'}
    </button>
  );
}
