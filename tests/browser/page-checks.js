'use strict';
/**
 * Checks run inside a page (page.evaluate) by the browser suite, and what they return:
 *   - clippedWithoutTitle: visible elements whose text is cut (content wider than the box, and
 *     the box does not scroll) with no title on them or an ancestor to show the whole text;
 *   - badWords: `undefined`, `NaN`, `[object Object]` or `Infinity` in the text or in a
 *     title (a formatting slip that would otherwise reach the screen).
 *   - horizontalOverflow: how far the page scrolls sideways (0 on a phone-friendly page), and
 *     the widest elements sticking out of the viewport, to say which one to fix.
 *   - headerRows: how many rows the header's visible parts (and the nav's links) take, with
 *     each part's box, to say what wrapped (the Live table's height assumes one row).
 * Plain functions of the DOM, so they can be serialized into the page.
 */

function clippedWithoutTitle() {
  const found = [];
  for (const element of document.querySelectorAll('body *')) {
    if (element.closest('svg') || element.children.length > 50) continue;
    if (element.scrollWidth <= element.clientWidth + 1 || element.clientWidth === 0) continue;
    const style = getComputedStyle(element);
    // A box that scrolls shows everything (by scrolling); one that is visible overflows, not clips.
    if (style.overflowX !== 'hidden' && style.overflowX !== 'clip') continue;
    const rect = element.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    // Clipped text: a text node inside that reaches past the box's edge. Text drawn in an SVG
    // (charts, the map) is placed by hand, and a wide child without text (an SVG) cuts nothing.
    let text = '';
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('svg') || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && (box.right > rect.right + 1 || box.left < rect.left - 1)) text += node.textContent;
    }
    text = text.trim();
    if (!text) continue;
    if (element.closest('[title]') && element.closest('[title]').getAttribute('title').trim()) continue;
    found.push(`${element.tagName.toLowerCase()}.${String(element.className).trim().replace(/\s+/g, '.')}: "${text.slice(0, 60)}"`);
  }
  return found.slice(0, 10);
}

function badWords() {
  const pattern = /\b(undefined|NaN|Infinity)\b|\[object Object\]/;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    // What people typed (names, messages) is theirs; .kv tables show raw server figures as sent.
    if (!parent || parent.closest('script, style, .kv, .chat-text, .msg-line')) continue;
    if (pattern.test(node.textContent)) found.push(`text in ${parent.tagName.toLowerCase()}: "${node.textContent.trim().slice(0, 80)}"`);
  }
  for (const element of document.querySelectorAll('[title]')) {
    if (pattern.test(element.getAttribute('title'))) found.push(`title of ${element.tagName.toLowerCase()}: "${element.getAttribute('title').slice(0, 80)}"`);
  }
  return found.slice(0, 10);
}

function horizontalOverflow() {
  const root = document.scrollingElement || document.documentElement;
  const viewport = root.clientWidth;
  const offenders = [];
  for (const element of document.querySelectorAll('body *')) {
    const rect = element.getBoundingClientRect();
    if (rect.width === 0 || rect.right <= viewport + 1) continue;
    // Inside a box that scrolls or clips sideways, sticking out is that box's business.
    let contained = false;
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      const overflowX = getComputedStyle(parent).overflowX;
      if (overflowX !== 'visible') { contained = true; break; }
    }
    if (contained) continue;
    offenders.push(`${element.tagName.toLowerCase()}.${String(element.className && element.className.baseVal !== undefined ? element.className.baseVal : element.className).trim().replace(/\s+/g, '.')} right=${Math.round(rect.right)}`);
  }
  return { overflow: Math.max(0, root.scrollWidth - viewport), viewport, offenders: offenders.slice(0, 8) };
}

function headerRows() {
  const header = document.querySelector('header.topbar');
  if (!header) return { rows: 0, navRows: 0, height: 0, parts: [] };
  // Items whose vertical middles are within 6 px share a row.
  const rowsOf = (elements) => {
    const middles = [];
    for (const element of elements) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      const middle = rect.top + rect.height / 2;
      if (!middles.some((seen) => Math.abs(seen - middle) <= 6)) middles.push(middle);
    }
    return middles.length;
  };
  const parts = Array.from(header.children);
  return {
    rows: rowsOf(parts),
    navRows: rowsOf(header.querySelectorAll('.nav-link')),
    // Links hidden in the nav's own scroll (its last resort before wrapping) count as cut.
    navCut: (() => {
      const nav = header.querySelector('.nav');
      return nav && nav.getBoundingClientRect().width > 0 ? Math.max(0, nav.scrollWidth - nav.clientWidth) : 0;
    })(),
    height: Math.round(header.getBoundingClientRect().height),
    parts: parts.map((part) => {
      const rect = part.getBoundingClientRect();
      return `${String(part.className).trim().split(/\s+/)[0] || part.tagName.toLowerCase()} ${Math.round(rect.left)}-${Math.round(rect.right)}@${Math.round(rect.top)}`;
    }),
  };
}

module.exports = { clippedWithoutTitle, badWords, horizontalOverflow, headerRows };
