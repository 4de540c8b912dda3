// The dice keypad and the live preview of the sheet. Without this script every keypad button
// is a plain submit and the server answers the same; the script saves the page loads, and
// keeps a turn tapped while the network is away until it can be sent.
// A tap on a box whose preview scores writes it at once (« Oups » undoes it); a box the dice
// would bar asks first, as does any box tapped before the preview of these dice came back
// (with no answer to that either, the box is sent as without scripts). It never computes a
// score: every preview, message and confirmation is HTML rendered by the server from the
// rules (games.turn), and a turn written comes back as the next sheet, swapped into the page
// (games.play).
import { announceSwap, swapIn } from "./swap.js";

document.documentElement.classList.add("js");

// A second tap on "Valider" before the next sheet shows would post the turn twice.
let posted = false;
window.addEventListener("pageshow", () => { posted = false; });

// A turn tapped while the server cannot be reached waits on the tablet, in localStorage (it
// outlives a reload, the tablet's sleep, the browser closed), and is sent again by itself:
// when the browser says the network is back, after a pause that grows, and when the page
// loads or shows again. It carries a key made here, the same every time it is sent, so that
// the server writes it once however many times it arrives (play.play_turn): the answer that
// was lost is then given again, « Déjà enregistré ». An answer that is the front's (nginx,
// the server away or busy) or the app's 503 (nothing written) is no answer to the turn.
const NOT_REACHED = new Set([408, 429, 502, 503, 504]);
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 8000;
// The longest a Retry-After is heeded (the server's say 2 to 5 s).
const LONGEST_WAIT_MS = 30000;
// A request the network swallowed without a word is given up after this, and sent again.
const TURN_TIMEOUT_MS = 20000;

const waitingTurns = {
  // One turn at most per game: the sheet waits for it before another can be tapped.
  slot: (sheetPath) => `waiting-turn:${sheetPath}`,
  keep(turn) {
    try {
      localStorage.setItem(this.slot(turn.sheet), JSON.stringify(turn));
    } catch { /* full or off: the page still holds it */ }
  },
  load(sheetPath) {
    try { return JSON.parse(localStorage.getItem(this.slot(sheetPath))); } catch { return null; }
  },
  forget(sheetPath) {
    try { localStorage.removeItem(this.slot(sheetPath)); } catch { /* nothing kept */ }
  },
};

// 128 random bits in hex; crypto.randomUUID needs HTTPS, a tablet may open the server by its
// address on the home network.
function newTurnKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)),
                    (byte) => byte.toString(16).padStart(2, "0")).join("");
}

let sending = false;
let retryTimer;
let retryDelay = FIRST_RETRY_MS;
let current = null; // the turn this page sent last, held here too: storage may refuse it

// The turn waiting for this page's game, if any.
function waitingTurn() {
  const kept = waitingTurns.load(location.pathname);
  return kept ?? (current?.sheet === location.pathname ? current : null);
}

// The confirmed turn, sent with the key made for it; the next sheet (or, after the last
// turn, the sheet that names the winner) is put in place of this one.
function writeTurn(form, button) {
  const fields = [...new FormData(form, button)].filter(([name]) => name !== "csrf_token");
  const turn = {
    sheet: new URL(form.dataset.sheetUrl, location.href).pathname,
    action: form.action,
    token: form.elements.csrf_token.value,
    fields: [...fields.filter(([name]) => name !== "turn_key"), ["turn_key", newTurnKey()]],
  };
  current = turn;
  waitingTurns.keep(turn);
  retryDelay = FIRST_RETRY_MS;
  send(turn);
}

function sendWaiting() {
  const turn = waitingTurn();
  if (turn && !sending) send(turn);
}

// The turn stays, and the page says so, until an answer comes: it is tried again later.
function notReached(waitMs) {
  sending = false;
  sayWaiting();
  clearTimeout(retryTimer);
  const heeded = Math.min(waitMs || 0, LONGEST_WAIT_MS);
  retryTimer = setTimeout(sendWaiting, Math.max(retryDelay, heeded));
  retryDelay = Math.min(retryDelay * 2, LONGEST_RETRY_MS);
}

async function send(turn) {
  sending = true;
  clearTimeout(retryTimer);
  // live.js waits for this turn's own answer rather than swap a sheet in under it.
  document.dispatchEvent(new CustomEvent("turn:sending"));
  const body = new FormData();
  for (const [name, value] of turn.fields) body.append(name, value);
  // The page's own token when it has one: a page loaded since the tap has a fresher one.
  body.append("csrf_token",
              document.querySelector('input[name="csrf_token"]')?.value ?? turn.token);
  let response;
  let text;
  try {
    response = await fetch(turn.action, {
      method: "POST", body, headers: { "X-Sheet-Swap": "1" },
      signal: AbortSignal.timeout?.(TURN_TIMEOUT_MS),
    });
    if (NOT_REACHED.has(response.status)) {
      notReached(Number(response.headers.get("Retry-After")) * 1000);
      return;
    }
    text = await response.text(); // the answer read whole, or it is none
  } catch {
    notReached();
    return;
  }
  // Answered: written now or before, or refused with the reason and the sheet as it is.
  waitingTurns.forget(turn.sheet);
  current = null;
  sending = false;
  retryDelay = FIRST_RETRY_MS;
  const page = new DOMParser().parseFromString(text, "text/html");
  if (!swapIn(page)) {
    window.location.assign(response.redirected ? response.url : turn.sheet);
    return;
  }
  // The sheet's own address (a page loaded with ?dice= loses them), or the ranking's. Only
  // when it differs: replaceState waits on the browser process, 7 ms of this page's main
  // thread in a trace of a turn.
  const address = new URL(response.redirected ? response.url : turn.sheet, location.href);
  if (address.href !== location.href) history.replaceState(null, "", address);
  posted = false;
  const next = document.querySelector("form[data-turn-url]");
  if (next) start(next);
  // Screen readers hear whose turn it is (or the ranking), as after a page load.
  document.querySelector("#turn-title, main h1[tabindex]")?.focus({ preventScroll: true });
  announceSwap(false);
}

// « Pas de réseau : le tour partira dès son retour », in the bar over the turn panel, where
// the refused taps are said; the dice stay as typed meanwhile.
function sayWaiting() {
  const form = document.querySelector("form[data-turn-url]");
  const bar = document.getElementById("confirm-bar");
  if (!form || !bar || !waitingTurn()) return;
  form.elements.dice.readOnly = true;
  if (bar.dataset.waiting) return;
  const line = document.createElement("p");
  line.className = "refusal";
  line.setAttribute("role", "status");
  line.textContent = form.dataset.waiting;
  bar.className = "confirm-bar confirm-waiting";
  bar.replaceChildren(line);
  bar.hidden = false;
  bar.dataset.waiting = "1";
}

window.addEventListener("online", () => {
  retryDelay = FIRST_RETRY_MS;
  sendWaiting();
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") sendWaiting();
});
window.addEventListener("pageshow", sendWaiting);

// A sheet another device's turn brought (live.js): its form gets the keypad as well.
document.addEventListener("sheet:swapped", (event) => {
  if (!event.detail?.pushed) return;
  const next = document.querySelector("form[data-turn-url]");
  if (next) start(next);
});

function start(form) {
  const input = form.elements.dice;
  const count = Number(form.dataset.diceCount);
  const faces = () => [...input.value].filter((char) => "123456".includes(char));
  let target = ""; // the box tapped, waiting for its confirmation
  let latest = 0; // only the answer to the latest request is shown
  let previewed = input.defaultValue; // the dice the sheet's previews were drawn for
  // Generala: whether the dice are said to come from the first throw (servida), as the
  // page's tick says it; and as the previews shown were drawn for.
  const served = () => Boolean(form.elements.served?.checked);
  let previewedServed = served();
  let servedKept = false; // a reload's tick, asked once with the dice it kept
  let pending; // the timer of a preview about to be asked
  let answered = 0; // the latest request whose answer came (or failed)

  // The page says where the turn stands, for assistive technology and for the tests that
  // drive it: aria-busy while a preview of the dice typed is on its way, data-previewed the
  // dice the previews shown were drawn for. The form has them once the script listens.
  function announce() {
    form.setAttribute("aria-busy", String(pending !== undefined || answered !== latest));
    form.dataset.previewed = previewed;
  }

  // The dice typed and the box tapped outlive a reload or a trip away and Back, for this
  // sheet only: a turn written here or elsewhere (or undone) makes another sheet.
  const keep = {
    slot: `turn:${form.action}`,
    save() {
      const turn = { typedOn: form.dataset.typedOn, dice: input.value, target, served: served() };
      try { sessionStorage.setItem(this.slot, JSON.stringify(turn)); } catch { /* full or off */ }
    },
    load() {
      try {
        const turn = JSON.parse(sessionStorage.getItem(this.slot));
        if (turn && turn.typedOn === form.dataset.typedOn) return turn;
      } catch { /* nothing kept */ }
      this.forget();
      return null;
    },
    forget() {
      try { sessionStorage.removeItem(this.slot); } catch { /* nothing kept */ }
    },
  };

  const buttonFor = (name, value) =>
    form.querySelector(`button[name="${name}"][value="${CSS.escape(value)}"]`);

  // A wrong throw said as it is typed, before the server's answer (and if none comes): the
  // dice read in the steps of the rules' parse_dice (rules/dice.py), with the rules' own
  // sentences the server wrote into the page. The server's answer then shows the same
  // sentence, or the preview: it decides. Too few dice are no problem while typing.
  const reading = JSON.parse(form.dataset.diceReading);
  const separators = new RegExp(reading.separators);
  function diceProblem(text) {
    const cleaned = text.trim();
    if (!cleaned) return null;
    let parts = cleaned.split(separators).filter(Boolean);
    if (parts.length === 1 && /^\p{Nd}+$/u.test(parts[0])) parts = [...parts[0]];
    const fill = (kind, value) => reading.said[kind].replace("{value}", value)
      .replace("{given}", String(parts.length));
    for (const part of parts) {
      if (!/^[0-9]+$/.test(part)) return fill("not_a_digit", part);
      if (!reading.faces.includes(Number(part))) return fill("not_a_face", Number(part));
    }
    return parts.length > count ? fill("too_many", "") : null;
  }

  // The boxes invite a tap once the dice typed are a throw: until the preview of a wrong
  // throw comes back, they are marked at once, and the status line says what is wrong.
  function judge() {
    const problem = diceProblem(input.value);
    if (problem === null && faces().length === count) return;
    for (const box of form.querySelectorAll(".box-btn")) box.setAttribute("aria-disabled", "true");
    if (problem === null) return;
    const status = document.getElementById("dice-status");
    status.className = "dice-status dice-wrong";
    status.textContent = problem;
  }

  function markFull() {
    const full = faces().length >= count;
    form.classList.toggle("dice-full", full);
    for (const key of form.querySelectorAll('button[name="add"]')) {
      key.setAttribute("aria-disabled", String(full));
    }
  }

  // Ask the server for the parts that follow the dice, and put each in place by its id.
  // False when no answer came: the caller may then fall back to posting the form.
  async function refresh(focusAfter) {
    clearTimeout(pending);
    pending = undefined;
    // A form another device's turn swapped out (live.js) asks nothing more: the new one
    // has the dice typed and asks its own preview.
    if (!form.isConnected) return true;
    const mine = ++latest;
    announce();
    keep.save(); // at once: a page left before the answer came finds the turn as typed
    const query = new URLSearchParams({ dice: input.value, seq: form.elements.seq.value, target });
    if (served() || servedKept) query.set("served", "1");
    servedKept = false;
    const failed = () => {
      if (mine === latest) answered = mine;
      announce();
      return false;
    };
    let response;
    try {
      response = await fetch(`${form.dataset.turnUrl}?${query}`);
    } catch {
      return failed();
    }
    if (mine !== latest || !form.isConnected) return true;
    if (response.status === 409) {
      // Someone played or undid on another device: show the sheet as it is now.
      window.location.assign(form.dataset.sheetUrl);
      return true;
    }
    if (!response.ok) return failed();
    const fresh = document.createElement("template");
    fresh.innerHTML = await response.text();
    if (mine !== latest) return true;
    previewed = query.get("dice");
    previewedServed = query.has("served");
    for (const part of fresh.content.children) {
      const old = document.getElementById(part.id);
      if (old) {
        old.className = part.className;
        old.hidden = part.hidden;
        old.innerHTML = part.innerHTML;
      }
    }
    markFull();
    answered = mine;
    announce();
    const confirm = form.querySelector("[data-confirm]");
    const next = confirm || (focusAfter && focusAfter());
    if (next) next.focus({ preventScroll: Boolean(confirm) });
    return true;
  }

  // Dice tapped or typed in a quick run make one request, once the run pauses.
  function refreshSoon(focusAfter) {
    clearTimeout(pending);
    pending = setTimeout(() => refresh(focusAfter), 100);
    announce();
    keep.save();
  }

  // Back to choosing a box, on the box that was tapped.
  function cancel() {
    const box = target;
    target = "";
    refresh(() => buttonFor("target", box));
  }

  // A refused tap the rules cannot judge (a box of another player, a die too many): the line
  // the server wrote into the page for it, shown where the other refusals are.
  function refuse(text) {
    const bar = document.getElementById("confirm-bar");
    target = "";
    bar.className = "confirm-bar confirm-refused";
    bar.replaceChildren();
    const line = document.createElement("p");
    line.className = "refusal";
    line.setAttribute("role", "alert");
    line.textContent = text;
    bar.append(line);
    bar.hidden = false;
    bar.dataset.said = "1";
  }

  // The tap on a box that scores with the dice shown is the turn itself: one tap less than a
  // confirmation, and « Oups » is there to take it back.
  function writeAtOnce(button) {
    if (posted || previewed !== input.value || faces().length < count) return false;
    if (previewedServed !== served()) return false;
    // A Generala servida ends the game: it is confirmed, as a barred box is.
    if (!button.classList.contains("preview") || button.classList.contains("wins")) return false;
    // A confirmation left from a barred box must not travel with this one.
    document.querySelector('#confirm-bar input[name="confirm"]')?.remove();
    form.requestSubmit(button); // a submit, as a confirmation is: live.js stops polling
    return true;
  }

  form.addEventListener("click", (event) => {
    // A turn waits for the network: every tap sends it again now, and does nothing else.
    if (waitingTurn()) {
      event.preventDefault();
      sendWaiting();
      return;
    }
    // The next tap takes such a line away again.
    const said = form.querySelector("#confirm-bar[data-said]");
    if (said) {
      said.hidden = true;
      delete said.dataset.said;
    }
    // A filled box, or one the rules forbid now: the server says why in one line.
    const refused = event.target.closest("td[data-box]");
    if (refused) {
      target = refused.dataset.box;
      refresh();
      return;
    }
    if (event.target.closest("td[data-seat]")) {
      refuse(form.dataset.otherSeat);
      return;
    }
    // A mark that says more in a sentence (the bonus's pace): that sentence, in the same place.
    const explained = event.target.closest("[data-explain]");
    if (explained) {
      refuse(explained.dataset.explain);
      return;
    }
    const button = event.target.closest("button");
    if (!button || button.hasAttribute("data-confirm")) return; // a confirmation posts the form
    const { name, value } = button;
    if (button.hasAttribute("data-cancel")) {
      cancel();
      return;
    }
    if (!["add", "drop", "clear", "preview", "target"].includes(name)) return;
    event.preventDefault();
    if (name === "target") {
      if (writeAtOnce(button)) return;
      target = value;
      // No confirmation to show without the server: the tap posts the box as it would
      // without scripts (and a barred box still gets its confirmation page).
      refresh().then((shown) => shown || form.requestSubmit(button));
      return;
    }
    const dice = name === "clear" ? [] : faces();
    if (name === "add" && dice.length >= count) {
      refuse(form.dataset.diceFull);
      return;
    }
    if (name === "add") {
      // A face, or a pair of one (Maxi Yatzy's pair keys): as many dice as there is room for.
      const added = [...value].slice(0, count - dice.length);
      dice.push(...added);
      // Draw each die at once in the first free spot; the server's answer redraws the tray.
      for (const _face of added) {
        const spot = document.querySelector("#dice-drawn .die-empty");
        if (spot) spot.replaceWith(button.querySelector(".die").cloneNode(true));
      }
    }
    if (name === "drop") dice.splice(Number(value), 1);
    if (name !== "preview") input.value = dice.join("");
    target = "";
    markFull();
    judge();
    // Keep the finger's place: the same key, or the die now at the same spot, or the keypad.
    const place = () => buttonFor(name, value) || form.querySelector('button[name="add"]');
    if (name === "add") refreshSoon(place);
    else refresh(place);
  });

  // The servida's tick: the previews again, with the first throw's points.
  form.addEventListener("change", (event) => {
    if (event.target.name !== "served") return;
    target = "";
    refresh();
  });

  input.addEventListener("input", () => {
    target = "";
    markFull();
    judge();
    refreshSoon();
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      refresh();
    }
  });

  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && target) cancel();
  });

  form.addEventListener("submit", (event) => {
    if (posted) {
      event.preventDefault();
      return;
    }
    posted = true;
    // A box tapped (at once, confirmed, or before its preview could come back): the turn,
    // written by the script. Other buttons (Conseil, « Oups ») post as without scripts.
    const submitter = event.submitter;
    if (submitter?.name !== "target") return;
    keep.forget(); // the turn is written, or waits to be
    event.preventDefault();
    writeTurn(form, submitter);
  });

  // Bring the active player into view where a row is wider than the screen: their columns
  // in the sheet (clear of the box names), their total in the strip of totals on a phone.
  const centre = (scroller, item, covered = 0) => {
    if (!scroller || !item) return;
    const left = item.getBoundingClientRect().left - scroller.getBoundingClientRect().left;
    const room = scroller.clientWidth - covered - item.offsetWidth;
    if (left + item.offsetWidth > scroller.clientWidth) {
      scroller.scrollLeft += left - covered - room / 2;
    }
  };
  announce();
  sayWaiting();
  const kept = keep.load();
  if (kept && !input.value && (kept.dice || kept.target)) {
    input.value = kept.dice;
    target = kept.target;
    markFull();
    // The tick comes back with the preview, asked as it was.
    servedKept = Boolean(kept.served);
    refresh();
  }

  const pane = document.getElementById("sheet-live");
  centre(pane, pane.querySelector("th.player.active"), pane.querySelector("th.corner").offsetWidth);
  // The hint that the sheet scrolls sideways, only where it does at this screen's width.
  const hint = document.getElementById("scroll-hint");
  if (hint) hint.hidden = pane.scrollWidth <= pane.clientWidth;
  centre(document.querySelector(".scoreboard"), document.querySelector(".score-chip.active"));
}

const form = document.querySelector("form[data-turn-url]");
if (form) start(form);
sendWaiting(); // a turn left waiting before a reload, or before the tablet slept
