// « Partager » on the ranking: the result card through the tablet's share sheet (Web Share
// with files) where the browser has one; elsewhere, or when sharing files is not allowed,
// the link downloads the card as it would without this script.
document.addEventListener("click", async (event) => {
  const link = event.target.closest("a[data-share-card]");
  if (!link || !navigator.canShare) return;
  event.preventDefault();
  const name = link.getAttribute("download");
  let card;
  try {
    const response = await fetch(link.href);
    if (!response.ok) {
      window.location.assign(link.href); // the server's page says why, in words
      return;
    }
    card = new File([await response.blob()], name, { type: "image/png" });
  } catch {
    window.location.assign(link.href);
    return;
  }
  if (navigator.canShare({ files: [card] })) {
    try {
      await navigator.share({ files: [card], title: link.dataset.title });
    } catch {
      // Closed by the player, or refused: nothing to do.
    }
    return;
  }
  const saved = document.createElement("a");
  saved.href = URL.createObjectURL(card);
  saved.download = name;
  saved.click();
  URL.revokeObjectURL(saved.href);
});
