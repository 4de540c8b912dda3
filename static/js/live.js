// Keep an open page of a game live. The server pushes the game's version as it changes
// (server-sent events from data-live-events, the version again on every reconnection: a
// tablet back from sleep or a server restarted catches up at once). A version other than the
// one this page shows (data-live-version) means another device played or undid: the page of
// the game as it is now comes in place of this one (swap.js), as after this device's own
// turn, and the dice being typed stay typed. The sheet's own stream brings that page with
// the version (`sheet`, the sheet's address in `path`); otherwise (the ranking, a spectator,
// the game over) it is fetched. Refused a stream (a server with every seat taken, or its
// database away), the page asks for the version a few seconds later and opens its stream
// again; its seat taken by a newer sheet of its household, or without EventSource, it asks
// for the version every few seconds instead.
import { announceSwap, swapIn } from "./swap.js";

const marker = () => document.querySelector("[data-live-url]");
const first = marker();
const SLOW_POLL_MS = 5000; // live.py's RETRY_AFTER_SECONDS

if (first) {
  let ownTurn = false; // this device's own submission brings the next sheet by itself
  let fetching = false;
  let waiting = null; // a version heard while busy: looked at once the page is in

  const shown = () => marker()?.dataset.liveVersion;

  document.addEventListener("submit", () => { ownTurn = true; });
  // A turn kept while the network was away, sent again (sheet.js): after a reload too.
  document.addEventListener("turn:sending", () => { ownTurn = true; });

  // The page as it is now, swapped in; the dice typed on this tablet kept in the field.
  // `pushed`: the page came with the version, else it is fetched from `address`.
  async function bringUp(address, pushed) {
    fetching = true;
    try {
      let page = null;
      let response = null;
      if (pushed) {
        page = new DOMParser().parseFromString(pushed, "text/html");
      } else {
        response = await fetch(address, { cache: "no-store", headers: { "X-Sheet-Swap": "1" } });
        page = response.ok &&
          new DOMParser().parseFromString(await response.text(), "text/html");
      }
      if (ownTurn) return; // this device's own turn is on its way: it brings the sheet
      const field = document.getElementById("dice");
      const typed = field?.value ?? "";
      const typing = field !== null && document.activeElement === field;
      if (!page || !swapIn(page)) {
        location.reload(); // gone (deleted, or this device signed out): as a load shows it
        return;
      }
      if (response?.redirected) history.replaceState(null, "", response.url);
      announceSwap(true);
      const next = document.getElementById("dice");
      if (next && typed) {
        next.value = typed;
        next.dispatchEvent(new Event("input", { bubbles: true })); // its preview, for this turn
      }
      if (next && typing) next.focus({ preventScroll: true });
    } catch {
      // The network dropped for a moment: the next version heard tries again.
    } finally {
      fetching = false;
    }
  }

  // A version heard while busy is looked at afterwards without the sheet it brought, which
  // a newer one may have overtaken meanwhile: the page is fetched as it is then.
  const later = (now) => ({ ...now, sheet: null });

  async function heard(now) {
    if (now.gone) {
      location.reload();
      return;
    }
    if (ownTurn || fetching) {
      waiting = now;
      return;
    }
    if (now.version === shown()) return;
    // The game's own address: the sheet (without ?dice=), or the ranking, which leads back
    // to the sheet once an undo reopened the game. The sheet pushed is for the sheet's page.
    const pushed = now.sheet && now.path === location.pathname ? now.sheet : null;
    await bringUp(location.pathname, pushed);
    if (waiting) {
      const again = waiting;
      waiting = null;
      heard(later(again));
    }
  }

  document.addEventListener("sheet:swapped", (event) => {
    if (event.detail?.pushed) return;
    ownTurn = false;
    if (waiting) {
      const again = waiting;
      waiting = null;
      heard(later(again));
    }
  });

  // The version asked once: whatever changed while this page had no stream.
  const ask = async () => {
    try {
      const response = await fetch(marker().dataset.liveUrl, {
        cache: "no-store", headers: { Accept: "application/json" },
      });
      if (response.ok) await heard(await response.json());
    } catch {
      // The network dropped for a moment: the next try asks again.
    }
  };

  const poll = async () => {
    await ask();
    setTimeout(poll, SLOW_POLL_MS);
  };

  function listen() {
    const stream = new EventSource(first.dataset.liveEvents);
    stream.addEventListener("message", (event) => {
      const now = JSON.parse(event.data);
      if (now.closed) {
        // Its seat went to a newer sheet of the household: ask now and then instead, rather
        // than take another of the household's seats.
        stream.close();
        setTimeout(poll, SLOW_POLL_MS);
        return;
      }
      heard(now);
    });
    stream.addEventListener("error", () => {
      // A network error: EventSource tries again by itself. A refusal (a server with every
      // seat taken, or its database away for a moment) closes it: in a few seconds the
      // version is asked, and the stream opened again.
      if (stream.readyState === EventSource.CLOSED) {
        setTimeout(async () => { await ask(); listen(); }, SLOW_POLL_MS);
      }
    });
  }

  if ("EventSource" in window && first.dataset.liveEvents) {
    listen();
  } else {
    setTimeout(poll, SLOW_POLL_MS);
  }
}
