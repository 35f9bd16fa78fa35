// The console's view of a ladder's webhook subscriptions (#ladder=NAME&view=webhooks, admin
// keys): where each sends, which kinds, and how its deliveries stand. A failing subscription
// (its last attempt got no 2xx) is marked, with its failures in a row, its last error and
// when it is tried next. It registers itself before console.js runs and builds with that
// script's helpers (window.eloConsole).
"use strict";

(function () {
  function state(w) {
    if (w.paused) return "paused";
    if (w.failing) return "failing";
    return w.delivered_through >= w.last_seq ? "up to date" : "delivering";
  }

  async function view(params) {
    const c = window.eloConsole;
    const h = c.h;
    const ladder = params.get("ladder");
    const base = c.ladderPath(ladder) + "/webhooks";
    const parts = [c.heading("Webhooks of " + ladder)];
    if (c.scope() !== "admin") {
      parts.push(h("p", { id: "webhooks-need-admin" }, "Webhook subscriptions are shown to an admin key."));
      return h("div", {}, parts);
    }
    const answer = await c.api("GET", base);
    if (!answer.webhooks.length) {
      parts.push(h("p", { id: "no-webhooks" }, "This ladder has no webhook subscription (PUT " + base + "/NAME makes one)."));
      return h("div", {}, parts);
    }
    const failing = answer.webhooks.filter((w) => w.failing);
    parts.push(
      h(
        "p",
        { id: "webhooks-failing", class: failing.length ? "alert" : null },
        failing.length ? failing.length + " of " + answer.webhooks.length + " failing: " + failing.map((w) => w.name).join(", ") : "None failing."
      )
    );
    const rows = answer.webhooks.map((w) =>
      h(
        "tr",
        { "data-webhook": w.name, class: w.failing ? "failing" : null },
        h("td", {}, w.name),
        h("td", {}, h("code", {}, w.url)),
        h("td", {}, w.kinds.length ? w.kinds.join(", ") : "every kind"),
        h("td", {}, state(w)),
        h("td", {}, c.count(w.delivered)),
        h("td", {}, String(w.delivered_through) + " of " + String(w.last_seq)),
        h("td", {}, String(w.attempts)),
        h("td", {}, w.failing ? c.time(w.failing_since) : "none"),
        h("td", {}, w.last_error || "none"),
        h("td", {}, w.failing ? c.time(w.next_attempt) : "none")
      )
    );
    parts.push(
      c.table(["Webhook", "URL", "Kinds", "State", "Delivered", "Through seq", "Failures in a row", "Failing since", "Last error", "Next attempt"], rows, { id: "webhooks" })
    );
    return h("div", {}, parts);
  }

  window.eloConsoleViews = Object.assign(window.eloConsoleViews || {}, { webhooks: view });
})();
