// Keep an open sheet live: poll the game's version and reload the page when another device
// has played or undone. The page says which entry count it shows (data-live-seq); any other
// count, or any later change, means the sheet on screen is out of date. A sheet swapped in
// by sheet.js after this device's own turn brings its own count: the watch starts again.
const first = document.querySelector("[data-live-url]");

if (first) {
  const url = first.dataset.liveUrl;
  const every = 400; // milliseconds: a change shows on every device within a second
  const shownSeq = () => Number(document.querySelector("[data-live-url]").dataset.liveSeq);
  let baseline = null;
  let leaving = false;
  let sheets = 0; // sheets swapped in: an answer about an earlier one is dropped
  let timer;

  // This device's own submission brings the next sheet by itself, with its message.
  document.addEventListener("submit", () => { leaving = true; });

  const poll = async () => {
    if (leaving) return;
    const asked = sheets;
    try {
      const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
      const now = response.ok && await response.json();
      if (leaving || asked !== sheets) return; // a turn of this device is on its way, or in
      if (now) {
        const shown = shownSeq();
        baseline ??= now.version;
        if (now.seq !== shown || now.version !== baseline) {
          location.reload();
          return;
        }
      }
    } catch {
      // The network dropped for a moment: the next poll tries again.
    }
    timer = setTimeout(poll, every);
  };
  timer = setTimeout(poll, every);

  document.addEventListener("sheet:swapped", () => {
    leaving = false;
    baseline = null;
    sheets += 1;
    clearTimeout(timer);
    timer = setTimeout(poll, every);
  });
}
