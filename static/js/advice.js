// The Conseil while its table is being built: fill the bar from the build's progress and
// say the time left (in the reader's language, from the server), then show the advice.
// Without scripts the page refreshes itself (a <noscript> meta refresh).
(function () {
  "use strict";
  var box = document.querySelector("[data-progress-url]");
  if (!box) { return; }
  var bar = box.querySelector("progress");
  var percent = box.querySelector(".advice-percent");
  var left = box.querySelector(".advice-time-left");
  var every = 500;  // ms: the bar moves smoothly, the answer is a few bytes

  function show(share, timeLeft) {
    var value = Math.round(100 * share);
    if (timeLeft && left.textContent !== timeLeft) { left.textContent = timeLeft; }
    bar.value = value;
    bar.textContent = value + " %";
    percent.textContent = value + " %";
  }

  function poll() {
    fetch(box.getAttribute("data-progress-url"), { headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (state) {
        // Ready, or no build any more (it failed): the page itself shows the advice or
        // starts the build again.
        if (state.ready || state.progress === null) {
          window.location.reload();
          return;
        }
        show(state.progress, state.time_left);
        window.setTimeout(poll, every);
      })
      .catch(function () { window.setTimeout(poll, every); });
  }

  window.setTimeout(poll, every);
}());
