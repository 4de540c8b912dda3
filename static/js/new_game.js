// The new-game screen's chips of known players: a tick types the name in the first free
// line, an untick clears the line holding it, and each chip shows whether its player is
// seated. Without this script the ticked players are seated after the names typed.
const form = document.querySelector("form.new-game");
const lines = [...form.querySelectorAll(".player-names input")];
const chips = [...form.querySelectorAll(".known-players input")];
const key = (name) => name.trim().toLocaleLowerCase();
const lineOf = (name) => lines.find((line) => line.value && key(line.value) === key(name));

function showSeated() {
  for (const chip of chips) chip.checked = Boolean(lineOf(chip.value));
}

for (const chip of chips) {
  chip.addEventListener("change", () => {
    if (chip.checked) {
      const free = lines.find((line) => !line.value.trim());
      // Every line taken: the chip stays unticked (the server would refuse an 11th anyway).
      if (free) free.value = chip.value;
    } else {
      const line = lineOf(chip.value);
      if (line) line.value = "";
    }
    showSeated();
  });
}
for (const line of lines) line.addEventListener("input", showSeated);
showSeated();
