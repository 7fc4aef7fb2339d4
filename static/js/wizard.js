/* GPUQuote wizard: progressive enhancement only. Every page works without this file. */
(function () {
  "use strict";

  // An error summary gets the focus, so that keyboard and screen-reader users land on it.
  var summary = document.getElementById("error-summary");
  if (summary) { summary.focus(); }

  // Step 1: the "size of another model" field and its kind only matter for "another model".
  var model = document.getElementById("id_model");
  var custom = document.getElementById("id_parameters_billions_field");
  var kind = document.getElementById("id_model_kind_field");
  if (model && custom) {
    var syncModel = function () {
      var needed = model.value === "custom" || custom.classList.contains("has-error");
      custom.hidden = !needed;
      if (kind) { kind.hidden = !needed && !kind.classList.contains("has-error"); }
    };
    model.addEventListener("change", syncModel);
    syncModel();
  }

  // Step 1: the fine-tuning method only matters for fine-tuning (without JavaScript it shows,
  // labelled "Fine-tuning method", and the server ignores it for the other tasks).
  var method = document.getElementById("id_method_field");
  var goals = document.querySelectorAll("input[name=goal]");
  if (method && goals.length) {
    var syncGoal = function () {
      var goal = document.querySelector("input[name=goal]:checked");
      method.hidden = !(goal && goal.value === "fine_tuning") && !method.classList.contains("has-error");
    };
    goals.forEach(function (input) { input.addEventListener("change", syncGoal); });
    syncGoal();
  }

  // Step 4: highlight the chosen region's defaults and show them as placeholders.
  var region = document.getElementById("id_region");
  var table = document.getElementById("region-defaults");
  if (region && table) {
    var price = document.getElementById("id_electricity_price");
    var pue = document.getElementById("id_pue");
    var decimal = (0.5).toLocaleString(document.documentElement.lang).charAt(1);
    var show = function (value, places) {
      return Number(value).toFixed(places).replace(".", decimal);
    };
    var syncRegion = function () {
      var currency = document.querySelector("input[name=currency]:checked");
      var code = currency ? currency.value : "EUR";
      table.querySelectorAll("tbody tr").forEach(function (row) {
        var selected = row.getAttribute("data-region") === region.value;
        row.classList.toggle("selected", selected);
        if (!selected) { return; }
        if (price) { price.placeholder = show(row.getAttribute(code === "USD" ? "data-usd" : "data-eur"), 3); }
        if (pue) { pue.placeholder = show(row.getAttribute("data-pue"), 2); }
      });
    };
    region.addEventListener("change", syncRegion);
    document.querySelectorAll("input[name=currency]").forEach(function (input) {
      input.addEventListener("change", syncRegion);
    });
    syncRegion();
  }

  // Result page: the private link is selected in one click, to copy it.
  var link = document.getElementById("private-url");
  if (link) { link.addEventListener("focus", function () { link.select(); }); }
})();
