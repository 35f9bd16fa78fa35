// The console's view of a ladder's matchmaking queues (#ladder=NAME&view=queues): each
// queue's settings, its waiting tickets and the longest wait now, and its latest matches
// (with a report or admin key: the feed GET …/queues/{queue}/matches). It registers itself
// before console.js runs and builds with that script's helpers (window.eloConsole).
"use strict";

(function () {
  // The latest matches shown per queue.
  const RECENT = 10;

  function windowText(m) {
    return m.initial_distance + " + " + m.growth_per_second + "/s up to " + m.max_distance;
  }

  function modeText(q) {
    if (q.mode === "teams") return "teams of " + q.team_size;
    if (q.mode === "free_for_all") return "free-for-all of " + q.entrants;
    return "pair";
  }

  function seconds(value) {
    return value < 60 ? value.toFixed(1) + " s" : (value / 60).toFixed(1) + " min";
  }

  async function view(params) {
    const c = window.eloConsole;
    const h = c.h;
    const ladder = params.get("ladder");
    const base = c.ladderPath(ladder) + "/queues";
    const answer = await c.api("GET", base);
    const now = Date.now() / 1000;
    const parts = [c.heading("Queues of " + ladder)];
    if (!answer.queues.length) {
      parts.push(h("p", { id: "no-queues" }, "This ladder has no matchmaking queue (PUT " + base + "/NAME makes one)."));
      return h("div", {}, parts);
    }
    const rows = answer.queues.map((q) =>
      h(
        "tr",
        { "data-queue": q.name },
        h("td", {}, q.name),
        h("td", {}, modeText(q)),
        h("td", {}, c.count(q.waiting)),
        h("td", {}, q.oldest_waiting === null || q.oldest_waiting === undefined ? "none" : seconds(Math.max(0, now - q.oldest_waiting))),
        h("td", {}, windowText(q.matchmaking)),
        h("td", {}, String(q.party_max)),
        h("td", {}, seconds(q.ticket_seconds)),
        h("td", {}, q.attributes.length ? q.attributes.join(", ") : "none"),
        h("td", {}, c.count(q.matches))
      )
    );
    parts.push(
      c.table(["Queue", "Mode", "Waiting", "Longest wait", "Window (rating points)", "Party max", "Ticket time", "Attributes", "Matches made"], rows, { id: "queues" })
    );
    const scope = c.scope();
    if (scope !== "report" && scope !== "admin") {
      parts.push(h("p", { id: "recent-needs-key" }, "A queue's latest matches are shown to a report or admin key."));
      return h("div", {}, parts);
    }
    for (const q of answer.queues) {
      const after = Math.max(0, q.matches - RECENT);
      const feed = await c.api("GET", base + "/" + encodeURIComponent(q.name) + "/matches?after=" + after + "&limit=" + RECENT);
      parts.push(h("h2", {}, "Latest matches of " + q.name));
      if (!feed.matches.length) {
        parts.push(h("p", {}, "None yet."));
        continue;
      }
      const lines = feed.matches
        .slice()
        .reverse()
        .map((m) =>
          h(
            "tr",
            {},
            h("td", {}, String(m.seq)),
            h("td", {}, h("code", {}, m.id)),
            h("td", {}, c.time(m.time)),
            h("td", {}, m.sides.map((side) => side.map((p) => p.player + " (" + c.rating(p.rating) + ")").join(", ")).join(" vs ")),
            h("td", {}, seconds(Math.max(...m.tickets.map((t) => t.waited))))
          )
        );
      parts.push(c.table(["#", "Match", "Made", "Sides (ratings when matched)", "Longest wait"], lines, { id: "recent-" + q.name, class: "recent" }));
    }
    return h("div", {}, parts);
  }

  window.eloConsoleViews = Object.assign(window.eloConsoleViews || {}, { queues: view });
})();
