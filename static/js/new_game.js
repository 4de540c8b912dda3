// The new-game screen. The chips of known players: a tick types the name in the first free
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

// The house rules a preset does not take are hidden once it is picked (each says its presets
// in data-presets), and disabled so that a box ticked for another preset is not sent with
// this one. Without this script they all show, and the server leaves out or refuses those of
// another preset.
const presets = [...form.querySelectorAll('input[name="preset"]')];
const byPreset = [...form.querySelectorAll("[data-presets]")];

function showPresetRules() {
  const picked = presets.find((radio) => radio.checked);
  for (const rule of byPreset) {
    rule.hidden = Boolean(picked) && !rule.dataset.presets.split(" ").includes(picked.value);
    for (const control of rule.querySelectorAll("input, select")) control.disabled = rule.hidden;
  }
}

for (const radio of presets) radio.addEventListener("change", showPresetRules);
showPresetRules();
