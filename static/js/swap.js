// Put a page of the game, as the server just answered it, in place of this one: its header
// (the menu gains or loses actions), its main part and its body's class; its title once the
// page is painted. The turn written on this tablet (sheet.js) and a turn pushed from another
// (live.js) come in this way. False when the answer is no such page: the caller loads it.
export function swapIn(page) {
  const main = page.querySelector("main");
  const header = page.querySelector(".site-header");
  if (!main || !header) return false;
  document.querySelector(".site-header").replaceWith(document.adoptNode(header));
  document.querySelector("main").replaceWith(document.adoptNode(main));
  document.body.className = page.body.className;
  // The new title (whose turn leads it) once the sheet is painted: a title changed costs the
  // browser more than the page (its tab, its window drawn again: 6 ms of its processes' CPU in
  // a trace of a turn against 7 for the page's own thread), which then no longer delays the sheet.
  const { title } = page;
  requestAnimationFrame(() => setTimeout(() => { document.title = title; }, 0));
  return true;
}

// Said once the new sheet is in: live.js and sheet.js watch for it, and so may tests.
// `pushed`: it came from another device's turn, not from this one's.
export function announceSwap(pushed) {
  document.dispatchEvent(new CustomEvent("sheet:swapped", { bubbles: true, detail: { pushed } }));
}
