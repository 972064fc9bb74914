'use strict';
/**
 * Bringing a block back into view after a click changed it somewhere the reader cannot see (the
 * Nodes list's next page, the Subpaths detail opening above the table). Pure arithmetic on
 * getBoundingClientRect() figures; the DOM side is hooks/use-reveal.js.
 */

/**
 * The window scroll position that puts the top of a block at `inset` px from the viewport's top
 * (below the sticky header) with `margin` px to spare, or null when its top is already in view
 * (between the header and the viewport's bottom): a block the reader sees is not moved.
 */
function revealScrollTop({ top, scrollY, viewportHeight, inset = 0, margin = 8 }) {
  if (![top, scrollY, viewportHeight, inset].every(Number.isFinite)) return null;
  if (top >= inset && top < viewportHeight) return null;
  return Math.max(0, Math.round(scrollY + top - inset - margin));
}

module.exports = { revealScrollTop };
