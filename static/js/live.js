// Keep an open sheet live: poll the game's version and reload the page when another device
// has played or undone. The page says which entry count it shows (data-live-seq); any other
// count, or any later change, means the sheet on screen is out of date.
const marker = document.querySelector("[data-live-url]");

if (marker) {
  const url = marker.dataset.liveUrl;
  const shown = Number(marker.dataset.liveSeq);
  const every = 400; // milliseconds: a change shows on every device within a second
  let baseline = null;
  let leaving = false;

  // This device's own submission reloads the page by itself, with its message.
  document.addEventListener("submit", () => { leaving = true; });

  const poll = async () => {
    if (leaving) return;
    try {
      const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
      if (response.ok) {
        const now = await response.json();
        baseline ??= now.version;
        if (now.seq !== shown || now.version !== baseline) {
          location.reload();
          return;
        }
      }
    } catch {
      // The network dropped for a moment: the next poll tries again.
    }
    setTimeout(poll, every);
  };
  setTimeout(poll, every);
}
